"""The Pods and PodGroups lists: every pod and gang the user may read, at a glance.

Like ``kubectl get pods`` and ``kubectl get podgroups`` across namespaces, with what a
console adds: why a pod is still Pending, the job each belongs to, the issue filters the
"pod issues" roll-up links to. Filters, sort and page are in the URL.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from accounts.roles import role_required
from console.namespaces import current_namespace
from console.render import render_page
from console.tables import Table
from core.models import PodPhase
from core.pod_issues import STUCK_PENDING, issue_labels
from jobs.pod_lists import (
    POD_FILTERS,
    POD_SORTS,
    PODGROUP_FILTERS,
    PODGROUP_SORTS,
    pod_list,
    pod_rows,
    podgroup_list,
    podgroup_rows,
)
from queues.models import PodGroupPhase, Queue

__all__ = ["pod_list_view", "podgroup_list_view"]


@role_required()
def pod_list_view(request: HttpRequest) -> HttpResponse:
    """Render the pods the user may read, filtered, sorted and paged from the URL."""
    namespace = current_namespace(request)
    filters = {name: request.GET.get(name, "") for name in POD_FILTERS}
    table = Table.from_request(request, sorts=POD_SORTS, default="name")
    page = table.paginate(pod_list(request.user, namespace=namespace, filters=filters))
    context = {
        "tab": "pods",
        "table": table,
        "page": page,
        "rows": pod_rows(page.object_list),
        "filters": filters,
        "filtered": any(filters.values()),
        "phases": PodPhase.values,
        "issues": issue_labels(),
        "stuck_minutes": int(STUCK_PENDING.total_seconds() // 60),
        "namespace": namespace,
    }
    return render_page(request, "jobs/pod_list.html", context, fragments=("pods-table",))


@role_required()
def podgroup_list_view(request: HttpRequest) -> HttpResponse:
    """Render the PodGroups the user may read, filtered, sorted and paged from the URL."""
    namespace = current_namespace(request)
    filters = {name: request.GET.get(name, "") for name in PODGROUP_FILTERS}
    table = Table.from_request(request, sorts=PODGROUP_SORTS, default="name")
    page = table.paginate(podgroup_list(request.user, namespace=namespace, filters=filters))
    context = {
        "tab": "podgroups",
        "table": table,
        "page": page,
        "rows": podgroup_rows(page.object_list),
        "filters": filters,
        "filtered": any(filters.values()),
        "phases": PodGroupPhase.values,
        "queues": list(Queue.objects.order_by("name").values_list("name", flat=True)),
        "namespace": namespace,
    }
    return render_page(request, "jobs/podgroup_list.html", context, fragments=("podgroups-table",))
