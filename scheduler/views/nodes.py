"""The Nodes pages: the table and the heat map of every node, a node's page, its actions.

Every role reads them (nodes are cluster-wide, as in ``accounts.roles``); cordon,
uncordon, down and up are operators' (and admins') writes, refused with a 403 before
anything is written. Each live region refreshes on node and pod changes and on sessions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db.models import Value
from django.db.models.fields.json import KT
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.roles import allowed_namespaces, can, role_required
from console.charts import figure_data
from console.render import render_page
from console.tables import Table
from console.time_range import TimeRange, time_range
from core.models import Node
from monitoring.node_history import NODE_RESOURCES, choose_node_resolution, node_series
from scheduler.charts import MISSING_GROUP, node_allocation_figure, node_heatmap_grid
from scheduler.load_status import LOAD_COLUMNS, fresh_stamp, loads_fresh
from scheduler.node_actions import NODE_ACTIONS, node_act, node_actions
from scheduler.node_selectors import (
    GPU,
    HEAT_RESOURCES,
    NODE_SORTS,
    KeptPerChange,
    Load,
    NodeFilterError,
    amount,
    has_label,
    label_keys,
    node_loads,
    node_page,
    node_rows,
    nodes_filtered,
    page_rows,
)

__all__ = ["HEATMAP_LIMIT", "node_action", "node_detail", "node_list"]

FILTERS = ("q", "selector", "ready", "cordoned", "group")
# The heat map draws at most this many nodes (the filtered ones, by name): 5,000 columns
# still draw in well under a second; beyond that a column is under a pixel wide anyway.
HEATMAP_LIMIT = 5000
FRAGMENTS = ("nodes-table", "nodes-heatmap")
_SCRIPT_ESCAPES = {ord(">"): "\\u003E", ord("<"): "\\u003C", ord("&"): "\\u0026"}
# Heat maps as of one change-stream position, by group and filters: every open Nodes page
# refreshes after the same change, and they share one drawing of the same nodes.
HEATMAPS: KeptPerChange[dict[str, Any]] = KeptPerChange(size=8)


def _heatmap(nodes: Any, group_by: str) -> dict[str, Any]:
    """Return the heat map of the filtered ``nodes`` (at most ``HEATMAP_LIMIT``) and its counts.

    Each resource's allocatable and the group's label are read in SQL, one narrow query per
    resource: decoding 5,000 JSON documents in Python would cost more than the whole page.
    """
    group = KT(f"labels__{group_by}") if group_by else Value("")
    amounts = [KT(f"allocatable__{r}") for r in HEAT_RESOURCES]
    # Stored loads (the last session's) come with the same rows; otherwise they are summed.
    fresh = loads_fresh()
    stored = LOAD_COLUMNS if fresh else ()
    rows = list(
        nodes.order_by("name").values_list("pk", "name", group, *amounts, *stored)[:HEATMAP_LIMIT]
    )
    width = len(HEAT_RESOURCES)
    # resource x node blocks, built column-wise: no per-cell Python for 5,000 nodes
    have = np.array([[amount(v) for v in row[3 : 3 + width]] for row in rows], dtype=np.int64)
    have = have.reshape(len(rows), width).T
    if fresh:
        cpu, memory, gpu_held, pods = (
            np.array([row[3 + width + i] for row in rows], dtype=np.int64) for i in range(4)
        )
    else:
        loads = node_loads()
        empty = Load()
        held_of = [loads.get(row[0], empty) for row in rows]
        cpu, memory, gpu_held, pods = (
            np.array([getattr(ld, f) for ld in held_of], dtype=np.int64)
            for f in ("cpu", "memory", "gpu", "pods")
        )
    by_resource = {"cpu": cpu, "memory": memory, GPU: gpu_held, "pods": pods * 1000}
    has_gpu = bool(have[HEAT_RESOURCES.index(GPU)].any()) if rows else False
    shown = [(i, r) for i, r in enumerate(HEAT_RESOURCES) if r != GPU or has_gpu]
    names = [r for _i, r in shown]
    held = np.stack([by_resource[r] for r in names]) if rows else np.zeros((len(names), 0))
    figure = node_heatmap_grid(
        [row[1] for row in rows],
        [(row[2] or MISSING_GROUP) if group_by else "" for row in rows],
        held,
        have[[i for i, _r in shown]] if rows else np.zeros((len(names), 0)),
        resources=names,
        group_by=group_by,
    )
    # Rendered once here: the cached answer is the finished <script> element (700 KiB of JSON
    # for 5,000 nodes), not a figure every request would encode again.
    # Plotly's own JSON text, escaped as json_script escapes: figure_data() would decode and
    # encode 700 KiB once more for nothing.
    text = figure.to_json().translate(_SCRIPT_ESCAPES)
    script = format_html('<script id="nodes-heatmap-figure" type="application/json">{}</script>',
                         mark_safe(text))  # escaped above  # fmt: skip
    return {"script": script, "shown": len(rows)}


@role_required()
def node_list(request: HttpRequest) -> HttpResponse:
    """Render the nodes table (filtered, sorted, paged from the URL) and the heat map."""
    filters = {name: request.GET.get(name, "").strip() for name in FILTERS}
    table = Table.from_request(request, sorts=NODE_SORTS, default="name")
    error: NodeFilterError | None = None
    try:
        nodes = nodes_filtered(filters)
    except NodeFilterError as exc:
        error, nodes = exc, Node.objects.none()
    group_by = filters["group"] if has_label(filters["group"]) else ""
    page = table.paginate(node_rows(nodes, sort=table.sort, descending=table.descending))
    total = nodes.count()
    heat: dict[str, Any] = {}

    def heatmap() -> dict[str, Any]:
        if not heat:
            # A store of the loads moves no change stream: its stamp is part of the key.
            key = (fresh_stamp(), group_by,
                   *(filters[k] for k in ("q", "selector", "ready", "cordoned")))  # fmt: skip
            heat.update(HEATMAPS.get(key, lambda: _heatmap(nodes, group_by)))
        return heat

    context = {
        "table": table,
        "page": page,
        # Called by the template only where the table is rendered: the heat map's live
        # refresh needs no row (and the rows' loads cost a pass over the pods after a change).
        "rows": lambda: page_rows(page.object_list),
        "filters": filters,
        "filter_error": error,
        "label_keys": label_keys,
        "group_by": group_by,
        "total": total,
        "heatmap": heatmap,
        "heatmap_limit": HEATMAP_LIMIT,
        "filtered": any(filters[k] for k in ("q", "selector", "ready", "cordoned")),
    }
    status = 400 if error else 200
    return render_page(
        request, "scheduler/node_list.html", context, fragments=FRAGMENTS, status=status
    )


def allocation_history(node: Node, span: TimeRange) -> dict[str, Any] | None:
    """Return the figure of ``node``'s allocation over ``span``, or None without samples.

    From the nodes' recorded history (one sample every ``VOLCANO_HISTORY_NODE_PERIOD``,
    merged per minute or ten beyond the hour), against the node's allocatable now.
    """
    now = span.until
    resolution = choose_node_resolution(span.since, span.until, now=now)
    series = node_series(node.pk, span.since, span.until, resolution=resolution)
    if not series.times:
        return None
    allocatable = {r: int((node.allocatable or {}).get(r, 0) or 0) for r in NODE_RESOURCES}
    return figure_data(node_allocation_figure(series.times, series.allocated, allocatable))


@role_required()
def node_detail(request: HttpRequest, name: str) -> HttpResponse:
    """Render one node: its resources, labels, taints, conditions, pods, events and audit."""
    node = get_object_or_404(Node, name=name)
    page = node_page(node, readable=allowed_namespaces(request.user))
    span = time_range(request)
    context = {
        "node": node,
        "p": page,
        "range": span,
        "allocation": allocation_history(node, span),
        "may_act": can(request.user, "nodes", write=True),
        "actions": [
            (action, _(label), _(question).format(node=node.name))
            for action, (label, question) in NODE_ACTIONS.items()
            if action in node_actions(node)
        ],
    }
    return render_page(request, "scheduler/node_detail.html", context, fragments=("node-body",))


@role_required()
@require_POST
def node_action(request: HttpRequest, name: str) -> HttpResponse:
    """Cordon, uncordon, take down or bring up one node (operators and admins only)."""
    if not can(request.user, "nodes", write=True):
        raise PermissionDenied(_("Your role does not allow changing nodes."))
    node = get_object_or_404(Node, name=name)
    action = request.POST.get("action", "")
    if action not in NODE_ACTIONS:
        messages.error(request, _("Unknown action: choose cordon, uncordon, down or up."))
        return redirect("scheduler:node_detail", name=name)
    messages.success(request, node_act(node=node, action=action))
    return redirect("scheduler:node_detail", name=name)
