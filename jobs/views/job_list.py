"""The jobs list: vcctl's columns, gang progress, why each waiting job waits, bulk actions;
then the Kubeflow training jobs with their kind, the training app's section (loaded by URL,
``training:training_list``, with the list's filters)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.roles import SUBMITTER, role_required, roles_of
from console.namespaces import current_namespace
from console.render import render_page
from console.tables import Table
from jobs.models import JobPhase
from jobs.selectors import JOB_SORTS, job_list, wait_reports
from jobs.services import CONSOLE_ACTIONS, job_act_bulk
from queues.models import Queue

__all__ = ["job_bulk", "job_list_view"]

FILTERS = ("queue", "phase", "mine", "q")
MAX_BULK = 500


@role_required()
def job_list_view(request: HttpRequest) -> HttpResponse:
    """Render the jobs the user may read, filtered, sorted and paged from the URL."""
    namespace = current_namespace(request)
    filters = {name: request.GET.get(name, "") for name in FILTERS}
    table = Table.from_request(request, sorts=JOB_SORTS, default="-created")
    page = table.paginate(job_list(request.user, namespace=namespace, filters=filters))
    jobs = list(page.object_list)
    reports = wait_reports(jobs)
    context = {
        "table": table,
        "page": page,
        "rows": [(job, reports.get(job.pk)) for job in jobs],
        "filters": filters,
        "phases": ["New", *JobPhase.values],
        "queues": list(Queue.objects.order_by("name").values_list("name", flat=True)),
        "may_act": bool(roles_of(request.user) & {SUBMITTER, "operator", "admin"}),
        "namespace": namespace,
    }
    return render_page(request, "jobs/job_list.html", context, fragments=("jobs-table",))


@role_required()
@require_POST
def job_bulk(request: HttpRequest) -> HttpResponse:
    """Abort, resume or delete the selected jobs; answer "N of M done" and each refusal."""
    action = request.POST.get("action", "")
    keys: list[tuple[str, str]] = []
    for value in request.POST.getlist("selected")[:MAX_BULK]:
        namespace, _sep, name = value.partition("/")
        if namespace and name:
            keys.append((namespace, name))
    if action not in CONSOLE_ACTIONS or action == "restart" or not keys:
        outcome = None
        error = _("Choose jobs and an action (abort, resume or delete).")
    else:
        outcome = job_act_bulk(keys=keys, action=action, user=request.user)
        error = ""
    context = {"outcome": outcome, "action": action, "error": error}
    if request.htmx:  # type: ignore[attr-defined]
        return render(request, "jobs/_bulk_result.html", context, status=400 if error else 200)
    if error:
        messages.error(request, error)
    elif outcome is not None:
        messages.success(
            request,
            _("%(done)s of %(total)s done.") % {"done": len(outcome.done), "total": outcome.total},
        )
    return redirect("jobs:job_list")
