"""A flow's steps laid out as a DAG the console draws as SVG, with no script.

Layers by longest path from a root (a step sits one layer right of its deepest target), then
each layer ordered by the mean position of its targets (one sweep of the barycentre
heuristic), which keeps Volcano's diamond example free of crossings. Each edge is a cubic
curve from the right side of a target's box to the left side of its dependant's. Pure: the
page passes in each step's state; the layout knows nothing of jobs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["BOX_HEIGHT", "BOX_WIDTH", "Dag", "DagEdge", "DagNode", "layout"]

BOX_WIDTH = 168
BOX_HEIGHT = 56
_GAP_X = 64
_GAP_Y = 24
_MARGIN = 8


@dataclass(frozen=True, slots=True)
class DagNode:
    """One step's box: where it is and what it shows."""

    name: str
    x: int
    y: int
    state: str
    detail: str
    url: str


@dataclass(frozen=True, slots=True)
class DagEdge:
    """An arrow from a target to its dependant (an SVG path)."""

    source: str
    target: str
    path: str


@dataclass(frozen=True, slots=True)
class Dag:
    """The laid-out graph and the size of its drawing."""

    nodes: tuple[DagNode, ...]
    edges: tuple[DagEdge, ...]
    width: int
    height: int


def _layers(steps: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    targets = {str(s["name"]): list((s.get("dependsOn") or {}).get("targets") or []) for s in steps}
    depth: dict[str, int] = {}

    def of(name: str, seen: frozenset[str]) -> int:
        if name in depth:
            return depth[name]
        parents = [t for t in targets.get(name, []) if t in targets and t not in seen]
        depth[name] = 1 + max((of(t, seen | {name}) for t in parents), default=-1)
        return depth[name]

    for name in targets:
        of(name, frozenset())
    return depth


def layout(
    steps: Sequence[Mapping[str, Any]],
    states: Mapping[str, str],
    details: Mapping[str, str] | None = None,
    urls: Mapping[str, str] | None = None,
) -> Dag:
    """Return the steps laid out left to right, each with its state, detail and link."""
    depth = _layers(steps)
    columns: dict[int, list[str]] = {}
    for step in steps:
        columns.setdefault(depth[str(step["name"])], []).append(str(step["name"]))
    targets = {str(s["name"]): list((s.get("dependsOn") or {}).get("targets") or []) for s in steps}
    row: dict[str, float] = {}
    for column in sorted(columns):
        names = columns[column]
        for index, name in enumerate(names):
            placed = [row[t] for t in targets[name] if t in row]
            row[name] = sum(placed) / len(placed) if placed else float(index)
        order = {n: i for i, n in enumerate(names)}
        names.sort(key=lambda n: (row[n], order[n]))
        for index, name in enumerate(names):
            row[name] = float(index)
    tallest = max((len(names) for names in columns.values()), default=0)
    height = _MARGIN * 2 + tallest * BOX_HEIGHT + max(tallest - 1, 0) * _GAP_Y
    where: dict[str, tuple[int, int]] = {}
    nodes = []
    for column, names in sorted(columns.items()):
        offset = (tallest - len(names)) * (BOX_HEIGHT + _GAP_Y) // 2
        for index, name in enumerate(names):
            x = _MARGIN + column * (BOX_WIDTH + _GAP_X)
            y = _MARGIN + offset + index * (BOX_HEIGHT + _GAP_Y)
            where[name] = (x, y)
            nodes.append(DagNode(name, x, y, states.get(name, ""), (details or {}).get(name, ""),
                                 (urls or {}).get(name, "")))  # fmt: skip
    edges = []
    for name, parents in targets.items():
        for parent in parents:
            if parent not in where:
                continue
            (x1, y1), (x2, y2) = where[parent], where[name]
            sx, sy = x1 + BOX_WIDTH, y1 + BOX_HEIGHT // 2
            ex, ey = x2 - 6, y2 + BOX_HEIGHT // 2
            bend = max((ex - sx) // 2, 16)
            path = f"M{sx},{sy} C{sx + bend},{sy} {ex - bend},{ey} {ex},{ey}"
            edges.append(DagEdge(parent, name, path))
    width = _MARGIN * 2 + len(columns) * BOX_WIDTH + max(len(columns) - 1, 0) * _GAP_X
    return Dag(tuple(nodes), tuple(edges), width, height)
