"""A job's page: tasks, pods, PodGroup, events, why it waits, its manifest; the actions."""

from __future__ import annotations

import yaml
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from jobs.manifests import dump_manifest
from jobs.models import Job
from jobs.pod_log import pod_logs
from jobs.selectors import TERMINAL_PHASES, job_page
from jobs.services import CONSOLE_ACTIONS, job_act
from volcano_site.console.render import render_page
from volcano_site.roles import can, role_required

__all__ = ["job_action", "job_detail"]


@role_required()
def job_detail(request: HttpRequest, namespace: str, name: str) -> HttpResponse:
    """Render one job, live."""
    page = job_page(request.user, namespace, name)
    manifest = yaml.safe_dump(dump_manifest(page.job), sort_keys=False)
    context = {
        "p": page,
        "job": page.job,
        "manifest": manifest,
        "logs": pod_logs(page.pods, page.events),
        "finished": page.job.phase in TERMINAL_PHASES,
    }
    return render_page(request, "jobs/job_detail.html", context, fragments=("job-body",))


@role_required()
@require_POST
def job_action(request: HttpRequest, namespace: str, name: str) -> HttpResponse:
    """Abort, resume, restart or delete one job, as the user's role allows."""
    action = request.POST.get("action", "")
    if not can(request.user, "jobs", write=True, namespace=namespace):
        return HttpResponseForbidden(_("Your role does not allow changing jobs here."))
    job = get_object_or_404(Job, namespace=namespace, name=name)
    if action not in CONSOLE_ACTIONS:
        messages.error(request, _("Unknown action."))
        return redirect("jobs:job_detail", namespace=namespace, name=name)
    job_act(job=job, action=action, user=request.user)
    if action == "delete":
        messages.success(request, _("Job %(name)s deleted.") % {"name": name})
        return redirect("jobs:job_list")
    messages.success(
        request, _("%(action)s requested for %(name)s.") % {"action": action.title(), "name": name}
    )
    return redirect("jobs:job_detail", namespace=namespace, name=name)
