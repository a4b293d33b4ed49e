"""The queues page: the queue tree (root at the top, each queue under its parent) with every
queue's state, PodGroups, quotas and engine share; the charts; a weight preview in place."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse

from accounts.roles import can, role_required
from console.charts import figure_data
from console.render import render_page
from console.tables import Table
from queues.charts import has_figures, queue_share_figure
from queues.selectors import QUEUE_SORTS, queue_rows, queue_tree, shown_resources

__all__ = ["queue_list"]

FRAGMENTS = ("queues-table", "queues-charts")


@role_required()
def queue_list(request: HttpRequest) -> HttpResponse:
    """Render every queue with the deserved share the scheduler computed at its last session."""
    table = Table.from_request(request, sorts=QUEUE_SORTS, default="name")
    rows = queue_rows(sort=table.sort, descending=table.descending)
    resources = shown_resources(row.queue for row in rows)
    for row in rows:
        row.fill_cells(resources)

    def charts() -> list[tuple[str, str, dict[str, Any]]]:
        """Build the charts only when the page or their fragment is rendered (not the table's)."""
        drawn = []
        for index, resource in enumerate(resources):
            if has_figures(resource, rows):
                figure = figure_data(queue_share_figure(resource, rows))
                drawn.append((resource, f"queue-share-{index}", figure))
        return drawn

    context = {
        "table": table,
        "rows": rows,
        "tree": queue_tree(rows),
        "resources": resources,
        "charts": charts,
        "plugin": next((r.share.plugin for r in rows if r.share.plugin), ""),
        "computed_at": max((r.share.at for r in rows), default=""),
        "may_edit": can(request.user, "queues", write=True),
    }
    return render_page(request, "queues/queue_list.html", context, fragments=FRAGMENTS)
