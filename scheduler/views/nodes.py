"""The Nodes pages: the table and the heat map of every node, a node's page, its actions.

Every role reads them (nodes are cluster-wide, as in ``accounts.roles``); cordon,
uncordon, down and up are operators' (and admins') writes, refused with a 403 before
anything is written. Each live region refreshes on node and pod changes and on sessions.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.roles import allowed_namespaces, can, role_required
from console.charts import figure_data
from console.render import render_page
from console.tables import Table
from console.time_range import TimeRange, time_range
from core.models import Node
from monitoring.node_history import NODE_RESOURCES, choose_node_resolution, node_series
from scheduler.charts import node_allocation_figure
from scheduler.load_status import fresh_stamp
from scheduler.node_actions import NODE_ACTIONS, node_act, node_actions
from scheduler.node_devices import some_node_has_gpus
from scheduler.node_heat import DEFAULT_GROUP, MAX_CELLS, NODES_DRAWN, Heat, in_group, node_heat
from scheduler.node_selectors import (
    HEAT_RESOURCES,
    NODE_SORTS,
    KeptPerChange,
    NodeFilterError,
    has_label,
    label_keys,
    node_page,
    node_rows,
    nodes_filtered,
    page_rows,
)

__all__ = ["node_action", "node_detail", "node_list"]

FILTERS = ("q", "selector", "ready", "cordoned", "group", "resource", "in")
FRAGMENTS = ("nodes-table", "nodes-heatmap")
# Heat maps as of one change-stream position, by picture and filters: every open Nodes page
# refreshes after the same change, and they share one drawing of the same nodes.
HEATMAPS: KeptPerChange[Heat] = KeptPerChange(size=8)
CELL = "__cell__"  # where charts.js puts the clicked cell's name in a chart's data-click-url


def _group_by(request: HttpRequest, total: int) -> str:
    """Return the label key to group by: the chosen one, or zone by default for many nodes.

    An explicit empty ``?group=`` is "by name"; no ``group`` at all lets a large cluster open
    on its zones rather than on a band of thousands of columns.
    """
    if "group" in request.GET:
        key = request.GET["group"].strip()
        return key if has_label(key) else ""
    return DEFAULT_GROUP if total > NODES_DRAWN and has_label(DEFAULT_GROUP) else ""


def _url(request: HttpRequest, **changes: str | None) -> str:
    """Return this page's query string with ``changes`` (None drops a parameter) and no page."""
    query = request.GET.copy()
    query.pop("page", None)
    for name, value in changes.items():
        if value is None:
            query.pop(name, None)
        else:
            query[name] = value  # in its place, if it was there
    return "?" + query.urlencode(safe="/")


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
    resource = filters["resource"] if filters["resource"] in HEAT_RESOURCES else "cpu"
    group_by = _group_by(request, nodes.count())
    # An opened group narrows the table too: the user drilled into these nodes.
    opened = request.GET.get("in") if group_by and "in" in request.GET else None
    if opened is not None:
        nodes = in_group(nodes, group_by, opened)
    page = table.paginate(node_rows(nodes, sort=table.sort, descending=table.descending))
    total = nodes.count()
    make = node_heat(nodes, total=total, group_by=group_by, resource=resource, opened=opened)
    heat: list[Heat] = []

    def heatmap() -> Heat:
        if not heat:
            # A store of the loads moves no change stream: its stamp is part of the key.
            key = (fresh_stamp(), group_by, resource, opened, total,
                   *(filters[k] for k in ("q", "selector", "ready", "cordoned")))  # fmt: skip
            heat.append(HEATMAPS.get(key, make))
        return heat[0]

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
        "resource": resource,
        "resources": HEAT_RESOURCES,
        "opened": opened,
        "total": total,
        "heatmap": heatmap,
        "nodes_drawn": NODES_DRAWN,
        "max_cells": MAX_CELLS,
        "group_url": lambda: _url(request, group=group_by, **{"in": CELL}),
        "groups_url": _url(request, group=group_by, **{"in": None}),
        "node_url": reverse("scheduler:node_detail", args=[CELL]),
        "filtered": any(filters[k] for k in ("q", "selector", "ready", "cordoned")),
        "show_gpus": some_node_has_gpus(),
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
