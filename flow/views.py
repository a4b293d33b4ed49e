"""The console's workflow pages: the Workflows list (flows and templates), a flow's page with
its DAG live, the CronJobs list and a cron job's page, and their actions.

Every page reads through ``flow.selectors`` with the user's namespaces; every action checks
the role's write access to that namespace and goes through ``flow.services`` (the API's own
paths), so what the console does is what kubectl would do.
"""

from __future__ import annotations

import yaml
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.roles import can, role_required
from console.namespaces import current_namespace
from console.render import render_page
from console.tables import Table
from flow.controller.cronjob import next_run
from flow.cron_words import describe, until
from flow.models import CronJob, FlowPhase, JobFlow
from flow.selectors import (
    CRON_SORTS,
    FLOW_SORTS,
    cron_job_list,
    cron_page,
    flow_list,
    flow_page,
    step_state,
    template_list,
)
from flow.services import cron_job_delete, cron_job_run_now, cron_job_suspend, job_flow_delete
from kube.manifests import dump_manifest
from kube.status import KubeError

__all__ = [
    "cronjob_action",
    "cronjob_detail",
    "cronjob_list",
    "flow_delete",
    "flow_detail",
    "template_detail",
    "workflow_list",
]


@role_required()
def workflow_list(request: HttpRequest) -> HttpResponse:
    """Render the flows the user may read with their progress, and the templates."""
    namespace = current_namespace(request)
    filters = {name: request.GET.get(name, "") for name in ("phase", "q")}
    table = Table.from_request(request, sorts=FLOW_SORTS, default="-created")
    page = table.paginate(flow_list(request.user, namespace=namespace, filters=filters))
    rows = []
    for flow in page.object_list:
        states = [step_state(flow, step["name"]) for step in flow.flows]
        prefix = f"{flow.name}-"
        running = [(name, name.removeprefix(prefix)) for name in flow.running_jobs]
        rows.append((flow, sum(1 for s in states if s == "Completed"), len(states), running))
    context = {
        "table": table,
        "page": page,
        "rows": rows,
        "filters": filters,
        "phases": FlowPhase.values,
        "templates": list(template_list(request.user, namespace=namespace)[:200]),
        "may_submit": can(request.user, "jobflows", write=True, namespace=namespace or None),
    }
    return render_page(request, "flow/flow_list.html", context, fragments=("flows-table",))


@role_required()
def template_detail(request: HttpRequest, namespace: str, name: str) -> HttpResponse:
    """Show a JobTemplate where templates are listed: the Workflows page, at its row."""
    template = template_list(request.user, namespace=namespace).filter(name=name).first()
    if template is None:
        raise Http404
    return redirect(f"{reverse('flow:flow_list')}?namespace={namespace}#template-{name}")


@role_required()
def flow_detail(request: HttpRequest, namespace: str, name: str) -> HttpResponse:
    """Render one flow: its DAG, its steps and their jobs, its events, live."""
    page = flow_page(request.user, namespace, name)
    context = {
        "p": page,
        "flow": page.flow,
        "manifest": yaml.safe_dump(dump_manifest(page.flow), sort_keys=False),
    }
    return render_page(request, "flow/flow_detail.html", context, fragments=("flow-body",))


@role_required()
@require_POST
def flow_delete(request: HttpRequest, namespace: str, name: str) -> HttpResponse:
    """Delete the flow; the jobs it made go with it."""
    if not can(request.user, "jobflows", write=True, namespace=namespace):
        raise PermissionDenied(_("Your role does not allow changing workflows here."))
    flow = get_object_or_404(JobFlow, namespace=namespace, name=name)
    job_flow_delete(flow=flow)
    messages.success(request, _("JobFlow %(name)s deleted.") % {"name": name})
    return redirect("flow:flow_list")


@role_required()
def cronjob_list(request: HttpRequest) -> HttpResponse:
    """Render the cron jobs the user may read: schedule, next and last run, active jobs."""
    namespace = current_namespace(request)
    filters = {name: request.GET.get(name, "") for name in ("state", "q")}
    table = Table.from_request(request, sorts=CRON_SORTS, default="name")
    page = table.paginate(cron_job_list(request.user, namespace=namespace, filters=filters))
    now = timezone.now()
    rows = []
    for cron in page.object_list:
        upcoming = next_run(cron, now)
        rows.append((cron, upcoming, describe(cron.schedule), until(upcoming, now)))
    context = {
        "table": table,
        "page": page,
        "rows": rows,
        "filters": filters,
        "may_submit": can(request.user, "cronjobs", write=True, namespace=namespace or None),
        "writable": {
            ns
            for ns in {row[0].namespace for row in rows}
            if can(request.user, "cronjobs", write=True, namespace=ns)
        },
    }
    return render_page(request, "flow/cronjob_list.html", context, fragments=("crons-table",))


@role_required()
def cronjob_detail(request: HttpRequest, namespace: str, name: str) -> HttpResponse:
    """Render one cron job: its schedule, next run, active jobs, history and events, live."""
    now = timezone.now()
    page = cron_page(request.user, namespace, name, now)
    context = {
        "next_words": until(page.next_run, now),
        "p": page,
        "cron": page.cron,
        "words": describe(page.cron.schedule),
        "manifest": yaml.safe_dump(dump_manifest(page.cron), sort_keys=False),
    }
    return render_page(request, "flow/cronjob_detail.html", context, fragments=("cron-body",))


@role_required()
@require_POST
def cronjob_action(request: HttpRequest, namespace: str, name: str) -> HttpResponse:
    """Suspend, resume, run now or delete one cron job, as the user's role allows."""
    if not can(request.user, "cronjobs", write=True, namespace=namespace):
        raise PermissionDenied(_("Your role does not allow changing cron jobs here."))
    cron = get_object_or_404(CronJob, namespace=namespace, name=name)
    action = request.POST.get("action", "")
    back = request.POST.get("next") or ""
    try:
        if action in ("suspend", "resume"):
            cron_job_suspend(cron=cron, suspend=action == "suspend", user=request.user)
            done = (
                _("CronJob %(name)s suspended.")
                if action == "suspend"
                else _("CronJob %(name)s resumed.")
            )
            messages.success(request, done % {"name": name})
        elif action == "run":
            job = cron_job_run_now(cron=cron, user=request.user)
            messages.success(
                request, _("Job %(job)s created from %(name)s.") % {"job": job.name, "name": name}
            )
        elif action == "delete":
            cron_job_delete(cron=cron)
            messages.success(request, _("CronJob %(name)s deleted.") % {"name": name})
            return redirect("flow:cronjob_list")
        else:
            messages.error(request, _("Unknown action."))
    except KubeError as refused:
        messages.error(request, refused.message)
    if back == "list":
        return redirect("flow:cronjob_list")
    return redirect("flow:cronjob_detail", namespace=namespace, name=name)
