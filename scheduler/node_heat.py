"""The Nodes page's heat map: which picture to draw, and only what it draws.

Three pictures, chosen from the URL:

- few nodes (at most ``NODES_DRAWN``) and no group opened: one column per node, one row per
  resource, as ``scheduler.charts.node_heatmap_grid`` draws them;
- many nodes grouped by a label (``?group=topology.kubernetes.io/zone``): one cell per
  group (its nodes' amounts summed), coloured by the chosen resource (``?resource=``);
- a group opened (``?in=zone-a``): one cell per node of that group.

Why: 5,000 one-pixel columns blur into a solid band and weigh 700 KiB of JSON. Every node is
still read (in SQL, one narrow row each), but the page receives only the cells it draws:
at most ``MAX_GROUPS`` groups or ``MAX_CELLS`` nodes, whatever the cluster's size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db.models import Case, Count, F, FloatField, Max, Min, Q, QuerySet, Sum, Value, When
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, Coalesce
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from core.models import Node
from scheduler.charts import MISSING_GROUP, heat_cells_figure, node_heatmap_grid
from scheduler.load_status import LOAD_COLUMNS, loads_fresh
from scheduler.node_selectors import GPU, HEAT_RESOURCES, Load, amount, node_loads

__all__ = [
    "DEFAULT_GROUP",
    "MAX_CELLS",
    "MAX_GROUPS",
    "NODES_DRAWN",
    "GroupLink",
    "Heat",
    "in_group",
    "node_heat",
]

# Above this many nodes, a picture of every node is a band: they are grouped instead.
NODES_DRAWN = 200
MAX_GROUPS = 400  # a label with more values (a hostname) is too fine to group by
MAX_CELLS = 1000  # an opened group draws at most this many nodes (by name)
# Many nodes and no group chosen: grouped by zone when the nodes carry it.
DEFAULT_GROUP = "topology.kubernetes.io/zone"
_SCRIPT_ESCAPES = {ord(">"): "\\u003E", ord("<"): "\\u003C", ord("&"): "\\u0026"}


@dataclass(frozen=True, slots=True)
class GroupLink:
    """One group as the link list under the chart names it (the keyboard's way in)."""

    name: str
    nodes: int
    percent: float | None


@dataclass(frozen=True, slots=True)
class Heat:
    """The heat map of one request: its ``<script>`` of figure JSON and what the page says."""

    mode: str  # "nodes" (a column per node), "groups" (a cell per group), "cells" (a group's)
    script: SafeString
    shown: int  # columns or cells drawn
    groups: tuple[GroupLink, ...] = ()
    group_count: int = 0  # groups found (more than drawn when above MAX_GROUPS)


def in_group(nodes: QuerySet[Node], key: str, value: str) -> QuerySet[Node]:
    """Return ``nodes`` whose label ``key`` is ``value`` (``(none)``: nodes without it)."""
    if value == MISSING_GROUP:
        return nodes.exclude(labels__has_key=key)
    return nodes.filter(**{f"labels__{key}": value})


def _rows(nodes: QuerySet[Node], group_by: str, limit: int | None) -> list[tuple[Any, ...]]:
    """Return (pk, name, group, allocatable per resource, stored loads if fresh) by name.

    Each resource's allocatable and the group's label are read in SQL: decoding 5,000 JSON
    documents in Python would cost more than the whole page.
    """
    group = KT(f"labels__{group_by}") if group_by else Value("")
    amounts = [KT(f"allocatable__{r}") for r in HEAT_RESOURCES]
    stored = LOAD_COLUMNS if loads_fresh() else ()
    query = nodes.order_by("name").values_list("pk", "name", group, *amounts, *stored)
    return list(query[:limit] if limit is not None else query)


def _amounts(rows: list[tuple[Any, ...]]) -> tuple[np.ndarray, np.ndarray]:
    """Return (held, have): resource x node blocks in ``HEAT_RESOURCES`` order, milli-units.

    Built column-wise: no per-cell Python for 5,000 nodes. Pods count in whole slots as the
    allocatable does (``pods: 110`` is 110,000 milli-units).
    """
    width = len(HEAT_RESOURCES)
    have = np.array([[amount(v) for v in row[3 : 3 + width]] for row in rows], dtype=np.int64)
    have = have.reshape(len(rows), width).T
    if rows and len(rows[0]) > 3 + width:  # the stored loads came with the rows
        cpu, memory, gpu, pods = (
            np.array([row[3 + width + i] for row in rows], dtype=np.int64) for i in range(4)
        )
    else:
        loads, empty = node_loads(), Load()
        held_of = [loads.get(row[0], empty) for row in rows]
        cpu, memory, gpu, pods = (
            np.array([getattr(ld, f) for ld in held_of], dtype=np.int64)
            for f in ("cpu", "memory", "gpu", "pods")
        )
    by_resource = {"cpu": cpu, "memory": memory, GPU: gpu, "pods": pods * 1000}
    held = np.stack([by_resource[r] for r in HEAT_RESOURCES]).reshape(width, len(rows))
    return held, have


def _script(figure: Any) -> SafeString:
    """Return the figure as a ``<script type="application/json">``, escaped as json_script does.

    Plotly's own JSON text: ``figure_data()`` would decode and encode it once more for nothing.
    """
    text = figure.to_json().translate(_SCRIPT_ESCAPES)
    return format_html('<script id="nodes-heatmap-figure" type="application/json">{}</script>',
                       mark_safe(text))  # escaped above  # fmt: skip


def _columns(nodes: QuerySet[Node], group_by: str) -> Heat:
    """One column per node (the first ``NODES_DRAWN`` by name), one row per resource."""
    rows = _rows(nodes, group_by, NODES_DRAWN)
    held, have = _amounts(rows)
    has_gpu = bool(have[HEAT_RESOURCES.index(GPU)].any())
    shown = [i for i, r in enumerate(HEAT_RESOURCES) if r != GPU or has_gpu]
    figure = node_heatmap_grid(
        [row[1] for row in rows],
        [(row[2] or MISSING_GROUP) if group_by else "" for row in rows],
        held[shown], have[shown],
        resources=[HEAT_RESOURCES[i] for i in shown], group_by=group_by,
    )  # fmt: skip
    return Heat("nodes", _script(figure), len(rows))


def _group_sums(
    nodes: QuerySet[Node], group_by: str, resource: str
) -> list[tuple[str, int, float, float, float | None, float | None]] | None:
    """Return per group (label, nodes, held, have, emptiest %, fullest %), summed in SQL.

    One ``GROUP BY`` over the stored loads: reading 20,000 nodes' rows into Python after each
    change cost the heat map about 130 ms of CPU. None when the stored loads are not fresh
    (the pods are then summed in Python, ``_amounts``).
    """
    if not loads_fresh():
        return None
    have = Cast(Coalesce(KT(f"allocatable__{resource}"), Value("0")), FloatField())
    column = {"cpu": "load_cpu", "memory": "load_memory", GPU: "load_gpu", "pods": "load_pods"}
    held = Cast(F(column[resource]), FloatField()) * (1000.0 if resource == "pods" else 1.0)
    share = Case(When(Q(have__gt=0), then=100.0 * F("held") / F("have")), output_field=FloatField())
    rows = (
        nodes.order_by()
        .annotate(group=KT(f"labels__{group_by}"), have=have, held=held)
        .annotate(share=share)
        .values("group")
        .annotate(
            n=Count("pk"),
            held_sum=Sum("held"),
            have_sum=Sum("have"),
            low=Min("share"),
            high=Max("share"),
        )
        .values_list("group", "n", "held_sum", "have_sum", "low", "high")
    )
    return [(g or MISSING_GROUP, n, hs or 0.0, vs or 0.0, lo, hi) for g, n, hs, vs, lo, hi in rows]


def _groups(nodes: QuerySet[Node], group_by: str, resource: str) -> Heat:
    """One cell per group of every node: sums of ``resource``, node counts, emptiest/fullest."""
    summed = _group_sums(nodes, group_by, resource)
    if summed is not None:
        merged: dict[str, list[Any]] = {}
        for name, n, held_g, have_g, lo, hi in summed:  # "" and no label are one group
            row = merged.setdefault(name, [0, 0.0, 0.0, np.inf, -np.inf])
            row[0] += n
            row[1] += held_g
            row[2] += have_g
            row[3] = min(row[3], lo) if lo is not None else row[3]
            row[4] = max(row[4], hi) if hi is not None else row[4]
        names = sorted(merged, key=lambda g: (g == MISSING_GROUP, g))
        counts = np.array([merged[g][0] for g in names], dtype=np.int64)
        held_sum = np.array([merged[g][1] for g in names], dtype=float)
        have_sum = np.array([merged[g][2] for g in names], dtype=float)
        low = np.array([merged[g][3] for g in names], dtype=float)
        high = np.array([merged[g][4] for g in names], dtype=float)
        low, high = np.where(np.isfinite(low), low, 0), np.where(np.isfinite(high), high, 0)
        return _group_heat(names, counts, held_sum, have_sum, low, high, resource)
    rows = _rows(nodes, group_by, None)
    held_all, have_all = _amounts(rows)
    index = HEAT_RESOURCES.index(resource)
    held, have = held_all[index].astype(float), have_all[index].astype(float)
    labels = np.array([row[2] or MISSING_GROUP for row in rows], dtype=object)
    names = sorted(set(labels.tolist()), key=lambda g: (g == MISSING_GROUP, g))
    position = {name: i for i, name in enumerate(names)}
    which = np.array([position[g] for g in labels], dtype=np.int64)
    size = len(names)
    counts = np.bincount(which, minlength=size)
    held_sum = np.bincount(which, weights=held, minlength=size)
    have_sum = np.bincount(which, weights=have, minlength=size)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(have > 0, 100 * held / have, np.nan)
    low, high = np.full(size, np.inf), np.full(size, -np.inf)
    np.fmin.at(low, which, share)
    np.fmax.at(high, which, share)
    low, high = np.where(np.isfinite(low), low, 0), np.where(np.isfinite(high), high, 0)
    return _group_heat(names, counts, held_sum, have_sum, low, high, resource)


def _group_heat(
    names: list[str],
    counts: np.ndarray,
    held_sum: np.ndarray,
    have_sum: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    resource: str,
) -> Heat:
    """Return the heat map of the groups' sums (at most ``MAX_GROUPS`` drawn)."""
    size = len(names)
    drawn = min(size, MAX_GROUPS)
    figure = heat_cells_figure(
        names[:drawn], held_sum[:drawn], have_sum[:drawn], resource=resource,
        counts=counts[:drawn].tolist(), spread=(low[:drawn], high[:drawn]),
    )  # fmt: skip
    links = tuple(
        GroupLink(name, int(counts[i]),
                  round(100 * held_sum[i] / have_sum[i], 1) if have_sum[i] > 0 else None)
        for i, name in enumerate(names[:drawn])
    )  # fmt: skip
    return Heat("groups", _script(figure), drawn, links, size)


def _cells(nodes: QuerySet[Node], resource: str) -> Heat:
    """One cell per node of an opened group (the first ``MAX_CELLS`` by name)."""
    rows = _rows(nodes, "", MAX_CELLS)
    held, have = _amounts(rows)
    index = HEAT_RESOURCES.index(resource)
    figure = heat_cells_figure(
        [row[1] for row in rows], held[index], have[index], resource=resource
    )
    return Heat("cells", _script(figure), len(rows))


def node_heat(
    nodes: QuerySet[Node], *, total: int, group_by: str, resource: str, opened: str | None
) -> Callable[[], Heat]:
    """Return the maker of the heat map of ``nodes`` (``total`` of them) for this request.

    ``opened``: the group the user opened (``nodes`` are already its own), or None.
    """
    if opened is not None:
        return lambda: _cells(nodes, resource)
    if group_by and total > NODES_DRAWN:
        return lambda: _groups(nodes, group_by, resource)
    return lambda: _columns(nodes, group_by)
