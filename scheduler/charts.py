"""The scheduler's charts: pure functions from plain series to Plotly figures.

The nodes heat map shows fragmentation at a glance: one column per node, one row per
resource, coloured by the share of allocatable that pods hold. Nodes are grouped by a label
of the user's choice (a zone, a rack, an instance type), so a group whose cells are half
full everywhere (room in total, but no single node with room for a large pod) stands out.

A node's page shows its allocation over time: per resource, the share of its allocatable
that its pods held, from the nodes' recorded history (``monitoring.node_history``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.utils.translation import gettext as _
from plotly import graph_objs as go

from console.charts import base_layout
from console.units import axis_unit

__all__ = [
    "MISSING_GROUP",
    "HeatNode",
    "heat_cells_figure",
    "node_allocation_figure",
    "node_heatmap",
    "node_heatmap_grid",
]

MISSING_GROUP = "(none)"
MAX_GROUP_TICKS = 40  # more group names than this overlap: every k-th is named
MAX_SEPARATORS = 200  # each line is an SVG element; beyond this the colours say enough


@dataclass(frozen=True, slots=True)
class HeatNode:
    """One column of the heat map: a node, its group's label value, (allocated, allocatable)."""

    name: str
    group: str
    cells: Mapping[str, tuple[int, int]]


def _row_label(resource: str) -> str:
    unit, _scale = axis_unit(resource)
    return f"{resource} ({unit})" if unit and unit != resource else resource


def _group_axis(
    groups: Sequence[str], names: Sequence[str]
) -> tuple[list[Any], list[Any], list[int]]:
    """Return tick values (a node per group, near its middle), tick texts, and group starts."""
    starts = [i for i, g in enumerate(groups) if i == 0 or g != groups[i - 1]]
    ends = [*starts[1:], len(groups)]
    step = max(1, -(-len(starts) // MAX_GROUP_TICKS))
    values, texts = [], []
    for index in range(0, len(starts), step):
        start, end = starts[index], ends[index]
        values.append(names[(start + end - 1) // 2])
        texts.append(f"{groups[start]} ({end - start})")
    return values, texts, starts


def node_heatmap(
    nodes: Sequence[HeatNode], *, resources: Sequence[str], group_by: str = ""
) -> go.Figure:
    """Return the heat map of ``nodes``: x = nodes grouped by ``group_by``, y = ``resources``.

    Columns are sorted by group, then name; nodes without the label form the group
    ``(none)``, last. Colour is allocated / allocatable in percent (0-100, fixed so two
    pictures compare); the hover names the node and both amounts, in the unit its row names (cores, GiB).
    """
    held = np.zeros((len(resources), len(nodes)))
    have = np.zeros((len(resources), len(nodes)))
    for column, node in enumerate(nodes):
        for row, resource in enumerate(resources):
            cell = node.cells.get(resource)
            if cell is not None:
                held[row, column], have[row, column] = cell
    return node_heatmap_grid(
        [n.name for n in nodes], [n.group for n in nodes], held, have,
        resources=resources, group_by=group_by,
    )  # fmt: skip


def node_heatmap_grid(
    names: Sequence[str],
    groups: Sequence[str],
    held: np.ndarray,
    have: np.ndarray,
    *,
    resources: Sequence[str],
    group_by: str = "",
) -> go.Figure:
    """Return ``node_heatmap`` from columns: names, group labels, and resource x node blocks.

    The page's form: 5,000 nodes' amounts arrive as two arrays, not 20,000 cells to walk.
    """
    order = sorted(
        range(len(names)),
        key=lambda i: (groups[i] == MISSING_GROUP or not groups[i], groups[i], names[i]),
    )
    names = [names[i] for i in order]
    groups = [groups[i] or MISSING_GROUP for i in order]
    held = np.asarray(held, dtype=float)[:, order]
    have = np.asarray(have, dtype=float)[:, order]
    ordered = names
    scale = np.array([[axis_unit(r)[1]] for r in resources])
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(have > 0, np.round(100 * held / have, 1), np.nan)  # NaN: a gap
    customdata = np.stack([held / scale, have / scale], axis=-1)
    few = len(ordered) <= 60  # gaps and names only while columns are wide enough to show them
    # add_trace, not Figure(trace): the constructor deep-copies the trace's arrays.
    fig = go.Figure(
        layout=base_layout(height=140 + 36 * len(resources),
                           margin={"l": 110, "r": 16, "t": 12, "b": 64}),
    )  # fmt: skip
    fig.add_trace(
        go.Heatmap(
            x=names, y=[_row_label(r) for r in resources], z=z, customdata=customdata,
            zmin=0, zmax=100, colorscale="Viridis", xgap=1 if few else 0, ygap=2,
            hovertemplate="<b>%{x}</b><br>%{y}: %{customdata[0]:.4~g} of %{customdata[1]:.4~g}"
                          " allocated (%{z:.0f}%)<extra></extra>",
            colorbar={"title": {"text": _("% allocated"), "side": "right"}, "ticksuffix": "%",
                      "thickness": 12},
            hoverongaps=False,
            # Built here from numbers and node names only: plotly.py's per-element checks of
            # 5,000 names and their arrays (about 130 ms a map) would check nothing new.
            _validate=False,
        )
    )  # fmt: skip
    xaxis: dict[str, Any] = {"type": "category", "showgrid": False, "automargin": True}
    if group_by and ordered:
        values, ticks, starts = _group_axis(groups, names)
        xaxis.update(tickmode="array", tickvals=values, ticktext=ticks, tickangle=-30,
                     title={"text": group_by})  # fmt: skip
        if 1 < len(starts) <= MAX_SEPARATORS:
            fig.update_layout(shapes=[
                {"type": "line", "xref": "x", "yref": "paper", "x0": s - 0.5, "x1": s - 0.5,
                 "y0": 0, "y1": 1, "line": {"width": 2, "color": "rgba(255,255,255,0.9)"}}
                for s in starts[1:]
            ])  # fmt: skip
    elif not few:
        xaxis.update(showticklabels=False, title={"text": f"{len(ordered)} nodes, by name"})
    else:
        xaxis.update(tickangle=-45)
    fig.update_layout(xaxis=xaxis, yaxis={"showgrid": False, "automargin": True})
    return fig


MAX_CELL_TEXT = 40  # more cells than this: names in the hover only (they would not fit)


def _grid_columns(count: int) -> int:
    """Return how many cells a row holds: rows about half as many as columns (a wide card).

    Not wider: a phone's card is 330 px, and a group's name must fit its cell.
    """
    return max(1, min(count, int(np.ceil(np.sqrt(count * 2)))))


def heat_cells_figure(
    names: Sequence[str],
    held: np.ndarray,
    have: np.ndarray,
    *,
    resource: str,
    counts: Sequence[int] | None = None,
    spread: tuple[np.ndarray, np.ndarray] | None = None,
) -> go.Figure:
    """Return a grid of cells, one per name (a group of nodes, or a node), coloured by share.

    ``held``/``have``: one amount of ``resource`` per name (milli-units, summed over a group).
    ``counts`` (groups): the nodes in each; ``spread`` (groups): the emptiest and the fullest
    node's share, in percent, which tells a group with room on one node from one whose room
    is spread thin. Colour is held / have in percent (0-100, fixed); a cell whose nodes do
    not advertise the resource is a gap. Cells fill rows left to right, in ``names`` order.

    Why a grid, not one column per node: 5,000 one-pixel columns blur into a solid band; a
    cell per group stays readable and its JSON stays small, whatever the cluster's size.
    """
    count = len(names)
    columns = _grid_columns(count)
    rows = max(1, -(-count // columns))
    unit, scale = axis_unit(resource)
    held = np.asarray(held, dtype=float)
    have = np.asarray(have, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(have > 0, np.round(100 * held / have, 1), np.nan)
    pad = rows * columns - count
    # Plain numbers (None: a gap), not a typed array: a few hundred cells read as they are.
    flat = [None if np.isnan(v) else float(v) for v in share] + [None] * pad
    z = [flat[r * columns : (r + 1) * columns] for r in range(rows)]
    extra: list[list[Any]] = [[] for _ in range(count)]
    if counts is not None:
        for i, n in enumerate(counts):
            extra[i].append(int(n))
    if spread is not None:
        for i, (low, high) in enumerate(zip(*spread, strict=True)):
            extra[i] += [round(float(low)), round(float(high))]
    cells: list[Any] = [
        [names[i], round(held[i] / scale, 3), round(have[i] / scale, 3), *extra[i]]
        for i in range(count)
    ]
    cells += [None] * pad
    customdata = [cells[r * columns : (r + 1) * columns] for r in range(rows)]
    amount_line = (
        f"{resource}: %{{customdata[1]:.4~g}} " + _("of") + f" %{{customdata[2]:.4~g}} {unit} "
        + _("allocated") + " (%{z:.0f}%)"
    )  # fmt: skip
    lines = ["<b>%{customdata[0]}</b>"]
    if counts is not None:
        lines.append("%{customdata[3]} " + _("nodes"))
    lines.append(amount_line)
    if spread is not None:
        lines.append(_("nodes from %(low)s to %(high)s allocated")
                     % {"low": "%{customdata[4]}%", "high": "%{customdata[5]}%"})  # fmt: skip
    trace: dict[str, Any] = {
        "z": z, "customdata": customdata, "zmin": 0, "zmax": 100, "colorscale": "Viridis",
        "xgap": 2, "ygap": 2, "hoverongaps": False,
        "hovertemplate": "<br>".join(lines) + "<extra></extra>",
        # Under the cells, not beside them: the cells keep the card's whole width.
        "colorbar": {"title": {"text": _("% allocated"), "side": "right"}, "ticksuffix": "%",
                     "thickness": 10, "orientation": "h", "y": -0.04, "yanchor": "top",
                     "len": 0.6},
    }  # fmt: skip
    if count <= MAX_CELL_TEXT:
        text = [*names, *([""] * pad)]
        trace["text"] = [text[r * columns : (r + 1) * columns] for r in range(rows)]
        trace["texttemplate"] = "%{text}"
        trace["textfont"] = {"size": 11}
    cells_height = max(rows * (44 if count <= MAX_CELL_TEXT else 22), 60)
    fig = go.Figure(layout=base_layout(height=min(700, cells_height) + 70,
                                       margin={"l": 8, "r": 8, "t": 8, "b": 62}))  # fmt: skip
    fig.add_trace(go.Heatmap(trace, _validate=False))
    hidden = {"showgrid": False, "zeroline": False, "showticklabels": False, "fixedrange": True}
    fig.update_layout(xaxis=hidden, yaxis={**hidden, "autorange": "reversed"})
    return fig


_LINE_COLOURS = {"cpu": "#3b82f6", "memory": "#a855f7", "nvidia.com/gpu": "#16a34a",
                 "pods": "#f59e0b"}  # fmt: skip


def node_allocation_figure(
    times: Sequence[str],
    allocated: Mapping[str, Sequence[int]],
    allocatable: Mapping[str, int],
) -> go.Figure:
    """Return a node's allocation over time: one line per resource, in % of its allocatable.

    ``allocated``: milli-units per resource, one per time (``times``: ISO instants); a
    resource the node does not advertise (allocatable 0) is left out. Percent keeps cpu,
    memory, GPUs and pod slots on one axis; the hover gives the amount in its unit too.
    """
    # Built from our own numbers (plotly.py's per-property checks would check nothing new on
    # every live refresh of the node's page).
    fig = go.Figure(
        layout=go.Layout(
            base_layout(
                uirevision="node-allocation",
                xaxis={"type": "date"},
                # no axis title: the card's subtitle says what the % is of, and a title
                # would cover the ticks on a phone
                yaxis={"range": [0, 105], "ticksuffix": "%"},
                height=280,
            ),
            _validate=False,
        )
    )  # fmt: skip
    for resource, values in allocated.items():
        have = int(allocatable.get(resource, 0) or 0)
        if have <= 0:
            continue
        unit, divisor = axis_unit(resource)
        percent = [round(100 * v / have, 1) for v in values]
        amounts = [round(v / divisor, 3) for v in values]
        fig.add_trace(go.Scatter(
            name=resource, x=list(times), y=percent, customdata=amounts, mode="lines",
            line={"color": _LINE_COLOURS.get(resource), "width": 2, "shape": "hv"},
            hovertemplate=f"%{{x}}<br>%{{y:.1f}}% (%{{customdata:.4~g}} of "
                          f"{have / divisor:.4g} {unit})<extra>{resource}</extra>",
            _validate=False,
        ))  # fmt: skip
    return fig
