"""The Quotas page: each namespace's ResourceQuotas, every resource used against hard.

Like ``kubectl describe quota`` across the namespaces the user may read (the namespace picker
narrows it), live: the region refreshes when a quota's status changes (the quota controller
writes ``status.used`` as pods come and go).
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from accounts.roles import can, role_required
from console.namespaces import current_namespace
from console.render import render_page
from jobs.quotas import quota_rows

__all__ = ["quota_list_view"]


@role_required()
def quota_list_view(request: HttpRequest) -> HttpResponse:
    """Render the ResourceQuotas of the namespaces the user may read."""
    namespace = current_namespace(request)
    context = {
        "rows": quota_rows(request.user, namespace),
        "namespace": namespace,
        "may_create": can(request.user, "resourcequotas", write=True, namespace=namespace or None),
    }
    return render_page(request, "jobs/quota_list.html", context, fragments=("quotas-table",))
