"""The jobs list: vcctl's columns, gang progress, why each waiting job waits, bulk actions;
then the Kubeflow training jobs with their kind, the training app's section (loaded by URL,
``training:training_list``, with the list's filters)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.roles import SUBMITTER, can, role_required, roles_of
from console.namespaces import current_namespace
from console.render import render_page
from console.tables import Table
from jobs.models import Job, JobPhase
from jobs.selectors import JOB_GROUPS, JOB_SORTS, job_group_key, job_groups, job_list, wait_reports
from jobs.services import CONSOLE_ACTIONS, job_act_bulk
from jobs.views.job_bulk_all import FILTERS, filter_text
from queues.models import Queue
from queues.why import WaitReport

__all__ = ["job_bulk", "job_list_view"]

MAX_BULK = 500


@role_required()
def job_list_view(request: HttpRequest) -> HttpResponse:
    """Render the jobs the user may read, filtered, sorted and paged from the URL."""
    namespace = current_namespace(request)
    filters = {name: request.GET.get(name, "") for name in FILTERS}
    group = request.GET.get("group", "")
    group = group if group in JOB_GROUPS else ""
    table = Table.from_request(request, sorts=JOB_SORTS, default="-created")
    if group:  # a group's rows together, groups A to Z whatever the direction of the sort
        first = [f"-{f}" if table.descending else f for f in JOB_GROUPS[group]]
        table.sorts = {key: (*first, *fields) for key, fields in JOB_SORTS.items()}
    matching = job_list(request.user, namespace=namespace, filters=filters)
    if group == "owner":
        matching = matching.select_related("creator")
    page = table.paginate(matching)
    jobs = list(page.object_list)
    reports = wait_reports(jobs)
    counts = job_groups(matching, group) if group else {}
    if group == "owner":  # creators sort in the database, owner references only here
        order = {key: index for index, key in enumerate(counts)}
        jobs.sort(key=lambda job: order.get(job_group_key(job, group), len(order)))
    total = page.paginator.count
    may_act = bool(roles_of(request.user) & {SUBMITTER, "operator", "admin"})
    may_act_all = False  # "act on all N matching": only for who may write some of those jobs
    if may_act and total:
        spaces = matching.order_by().values_list("namespace", flat=True).distinct()
        may_act_all = any(can(request.user, "jobs", write=True, namespace=ns) for ns in spaces)
    # Each row, and above the first of each group its heading: (group, count over all pages).
    rows: list[tuple[Job, WaitReport | None, tuple[str, int] | None]] = []
    previous = None
    for job in jobs:
        key = job_group_key(job, group) if group else ""
        heading = (key, counts.get(key, 0)) if group and key != previous else None
        previous = key
        rows.append((job, reports.get(job.pk), heading))
    context = {
        "table": table,
        "page": page,
        "rows": rows,
        "group": group,
        "groups": list(JOB_GROUPS),
        "group_counts": counts,
        "may_act_all": may_act_all,
        "matching_count": total,
        "filter_text": filter_text(filters, namespace),
        "filters": filters,
        "phases": ["New", *JobPhase.values],
        "queues": list(Queue.objects.order_by("name").values_list("name", flat=True)),
        "may_act": may_act,
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
