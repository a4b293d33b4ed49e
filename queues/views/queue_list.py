"""The queues page: every queue's state, PodGroups, quotas and engine share; charts; the tree."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from queues.charts import queue_share_figure
from queues.selectors import QUEUE_SORTS, queue_rows, shown_resources
from queues.shares import live_shares
from volcano_site.console.charts import figure_data
from volcano_site.console.render import render_page
from volcano_site.console.tables import Table
from volcano_site.roles import can, role_required

__all__ = ["queue_list"]

FRAGMENTS = ("queues-table", "queues-charts")


@role_required()
def queue_list(request: HttpRequest) -> HttpResponse:
    """Render every queue with the deserved share the engine computes now."""
    table = Table.from_request(request, sorts=QUEUE_SORTS, default="name")
    report = live_shares()
    rows = queue_rows(report, sort=table.sort, descending=table.descending)
    resources = shown_resources(row.queue for row in rows)
    charts = [
        (resource, f"queue-share-{index}", figure_data(queue_share_figure(resource, rows)))
        for index, resource in enumerate(resources)
    ]
    context = {
        "table": table,
        "rows": rows,
        "resources": resources,
        "charts": charts,
        "plugin": report.plugin,
        "hierarchy": any(row.depth for row in rows),
        "may_edit": can(request.user, "queues", write=True),
    }
    return render_page(request, "queues/queue_list.html", context, fragments=FRAGMENTS)
