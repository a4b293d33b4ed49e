"""A job's page: tasks, pods, PodGroup, events, why it waits, what protects its pods from
eviction (budgets, cool-downs), its manifest; the actions."""

from __future__ import annotations

from typing import Any

import yaml
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.roles import OPERATORS, can, role_required, roles_of
from console.charts import figure_data
from console.render import render_page
from console.time_range import TimeRange, time_range
from core.models import Pod
from core.pod_issues import STUCK_PENDING
from jobs.charts import drf_share_figure, pod_timeline_figure
from jobs.guards import job_guards
from jobs.models import Job
from jobs.selectors import TERMINAL_PHASES, job_deletion, job_page
from jobs.services import CONSOLE_ACTIONS, job_act, job_actions
from jobs.timeline import PodSpan, drf_share_steps, pod_span
from kube.manifests import dump_manifest
from kubelet.pod_log import pod_logs
from queues.why import cluster_allocatable
from topology.models import HyperNode
from topology.placement import PLACED_PHASES, placed_in

__all__ = ["PODS_PER_PAGE", "TIMELINE_PODS", "job_action", "job_charts", "job_detail", "placement"]

TIMELINE_PODS = 200  # rows of the timeline; the DRF share still counts every pod
# Rows of the pods table per page: a 1,000-pod job's page drew every row and its log (660 KiB,
# about 300 ms of CPU); the counts, charts and issues above still cover every pod.
PODS_PER_PAGE = 100


def _spans(pods: list[Pod], job_name: str) -> list[PodSpan]:
    prefix = f"{job_name}-"  # rows named by task and index: the job is the page's title
    return [
        pod_span(
            name=p.name.removeprefix(prefix) or p.name, phase=p.phase, created=p.created_at, conditions=p.conditions or [],
            node_bound=p.node_id is not None, start_time=p.start_time,
            finish_time=p.finish_time, deletion_time=p.deletion_time,
            # every pod takes one of its node's pod slots, as the engine counts it
            requests={**(p.requests or {}), "pods": 1000},
        )
        for p in pods
    ]  # fmt: skip


def ready_allocatable() -> dict[str, int]:
    """Return the Ready nodes' allocatable summed: the total the drf plugin divides by.

    Summed in SQL (``cluster_allocatable``): 20,000 nodes' JSON decoded here cost a job's
    page about 60 ms.
    """
    return cluster_allocatable(schedulable_only=False)


def job_charts(pods: list[Pod], span: TimeRange, *, job_name: str = "") -> dict[str, Any]:
    """Return the job page's figures: its pods' timeline and its DRF share over ``span``.

    Both rebuilt from the pods' own timestamps (``jobs.timeline`` says why and its limits);
    empty when the job has no pod yet.
    """
    if not pods:
        return {}
    spans = _spans(pods, job_name)
    # From the first pod on (a short job would be a sliver of the hour), within the range.
    since = max(span.since, min(s.created for s in spans))
    steps = drf_share_steps(spans, ready_allocatable(), since=since, until=span.until)
    shown = spans[:TIMELINE_PODS]
    return {
        "timeline": figure_data(pod_timeline_figure(shown, now=span.until, since=span.since)),
        "drf": figure_data(drf_share_figure(steps)),
        "hidden_pods": len(spans) - len(shown),
        "peak": max(steps.shares, default=0.0),
    }


def placement(pods: list[Pod]) -> HyperNode | None:
    """Return the HyperNode the job's gang landed in: the lowest-tier one holding the nodes of
    all its bound, live pods (as Volcano recovers a job's allocated HyperNode); None without.

    ``pods`` come with their nodes (``job_page`` reads them so): two queries at most.
    """
    names = {
        pod.node.name
        for pod in pods
        if pod.node is not None and pod.phase in PLACED_PHASES and pod.deletion_time is None
    }
    return placed_in(names)


@role_required()
def job_detail(request: HttpRequest, namespace: str, name: str) -> HttpResponse:
    """Render one job, live; a job a person deleted says when and by whom (404)."""
    deletion = job_deletion(request.user, namespace, name)
    if deletion is not None:
        context = {
            "namespace": namespace,
            "name": name,
            "deletion": deletion,
            "may_audit": bool(roles_of(request.user) & OPERATORS),
        }
        return render(request, "jobs/job_gone.html", context, status=404)
    page = job_page(request.user, namespace, name)
    manifest = yaml.safe_dump(dump_manifest(page.job), sort_keys=False)
    span = time_range(request)
    pods_page = Paginator(page.pods, PODS_PER_PAGE).get_page(request.GET.get("pods_page"))
    query = request.GET.copy()
    query.pop("pods_page", None)
    context = {
        "pods_page": pods_page,
        "pods_query": query.urlencode(),
        "range": span,
        "charts": job_charts(page.pods, span, job_name=page.job.name),
        "p": page,
        "job": page.job,
        "manifest": manifest,
        "logs": pod_logs(list(pods_page.object_list), page.events),
        "finished": page.job.phase in TERMINAL_PHASES,
        "actions": job_actions(page.job),
        "stuck_minutes": int(STUCK_PENDING.total_seconds() // 60),
        "guards": job_guards(page.job.namespace, page.pods, timezone.now()),
        "placed_in": placement(page.pods),
    }
    return render_page(request, "jobs/job_detail.html", context, fragments=("job-body",))


@role_required()
@require_POST
def job_action(request: HttpRequest, namespace: str, name: str) -> HttpResponse:
    """Abort, resume, restart or delete one job, as the user's role allows."""
    action = request.POST.get("action", "")
    if not can(request.user, "jobs", write=True, namespace=namespace):
        raise PermissionDenied(_("Your role does not allow changing jobs here."))
    job = get_object_or_404(Job, namespace=namespace, name=name)
    if action not in CONSOLE_ACTIONS:
        messages.error(request, _("Unknown action."))
        return redirect("jobs:job_detail", namespace=namespace, name=name)
    if action not in job_actions(job):
        messages.error(
            request,
            _("%(action)s does nothing to a job that is %(phase)s.")
            % {"action": action.title(), "phase": job.phase},
        )
        return redirect("jobs:job_detail", namespace=namespace, name=name)
    job_act(job=job, action=action, user=request.user)
    if action == "delete":
        messages.success(request, _("Job %(name)s deleted.") % {"name": name})
        return redirect("jobs:job_list")
    messages.success(
        request, _("%(action)s requested for %(name)s.") % {"action": action.title(), "name": name}
    )
    return redirect("jobs:job_detail", namespace=namespace, name=name)
