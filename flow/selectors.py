"""Reads for the console's workflow pages: flows with their progress, a flow's DAG and steps,
templates, cron jobs with their next run, a cron job's jobs.

Each list is a constant number of queries whatever it holds (the flows' jobs are not read for
the list: a flow's status already names them by phase).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.roles import can
from console.namespaces import restrict
from core.models import Event
from flow.controller.cronjob import MANUAL_ANNOTATION, SCHEDULED_ANNOTATION, next_run
from flow.controller.jobflow import job_name
from flow.dag import Dag, layout
from flow.models import CronJob, FlowPhase, JobFlow, JobTemplate
from jobs.models import Job

__all__ = [
    "CRON_SORTS",
    "FLOW_SORTS",
    "CronPage",
    "FlowPage",
    "StepRow",
    "cron_job_list",
    "cron_page",
    "flow_list",
    "flow_page",
    "step_state",
    "template_list",
]

FLOW_SORTS: Mapping[str, tuple[str, ...]] = {
    "name": ("name", "namespace", "id"),
    "phase": ("phase", "name", "id"),
    "created": ("created_at", "id"),
}
CRON_SORTS: Mapping[str, tuple[str, ...]] = {
    "name": ("name", "namespace", "id"),
    "schedule": ("schedule", "name", "id"),
    "last": ("last_schedule_time", "id"),
    "created": ("created_at", "id"),
}
WAITING = "Waiting"  # a step whose job does not exist yet
_EVENT_LIMIT = 50


def flow_list(user: Any, *, namespace: str = "", filters: Mapping[str, str]) -> QuerySet[JobFlow]:
    """Return the flows ``user`` may read, filtered by phase and by text in the name."""
    rows: QuerySet[JobFlow] = restrict(JobFlow.objects.all(), user, namespace)
    if phase := filters.get("phase", ""):
        # A flow the controller has not seen yet (no phase) is Pending too.
        rows = rows.filter(phase__in=("", phase) if phase == FlowPhase.PENDING else (phase,))
    if text := filters.get("q", "").strip():
        rows = rows.filter(name__icontains=text)
    return rows


def template_list(user: Any, *, namespace: str = "") -> QuerySet[JobTemplate]:
    """Return the JobTemplates ``user`` may read, by name."""
    rows: QuerySet[JobTemplate] = restrict(JobTemplate.objects.all(), user, namespace)
    return rows.order_by("namespace", "name")


def step_state(flow: JobFlow, step: str) -> str:
    """Return the phase of the step's job, or ``Waiting`` when the flow has not made it."""
    condition = (flow.conditions or {}).get(job_name(flow.name, step))
    if condition is None:
        return WAITING
    return str(condition.get("phase") or "Pending")


@dataclass(frozen=True, slots=True)
class StepRow:
    """One step of a flow: what it waits for and the job it made."""

    name: str
    job: str
    targets: list[str]
    probe: str
    state: str
    started: dt.datetime | None
    finished: dt.datetime | None
    duration: str
    restarts: int
    exists: bool


@dataclass(slots=True)
class FlowPage:
    """Everything a flow's page shows."""

    flow: JobFlow
    steps: list[StepRow]
    dag: Dag
    events: list[Event]
    templates_missing: list[str]
    can_write: bool

    @property
    def done(self) -> int:
        """Return how many steps' jobs completed."""
        return sum(1 for step in self.steps if step.state == "Completed")

    @property
    def total(self) -> int:
        """Return how many steps the flow has."""
        return len(self.steps)


def _probe_words(step: Mapping[str, Any]) -> str:
    probe = (step.get("dependsOn") or {}).get("probe") or {}
    words = [
        _("task %(task)s %(phase)s") % {"task": p.get("taskName"), "phase": p.get("phase")}
        for p in probe.get("taskStatusList") or []
    ]
    words += [
        _("TCP %(task)s:%(port)s") % {"task": p.get("taskName"), "port": p.get("port")}
        for p in probe.get("tcpSocketList") or []
    ]
    words += [
        _("HTTP %(task)s:%(port)s%(path)s")
        % {"task": p.get("taskName"), "port": p.get("port"), "path": p.get("path", "")}
        for p in probe.get("httpGetList") or []
    ]
    return ", ".join(words)


def _time(value: Any) -> dt.datetime | None:
    """Return an RFC 3339 time of the status as a datetime (None when unset or unreadable)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _whole_seconds(duration: str) -> str:
    """Return a Go duration without its fraction of a second ("11.968809s" → "11s")."""
    return re.sub(r"\.\d+s$", "s", duration)


def flow_page(user: Any, namespace: str, name: str) -> FlowPage:
    """Return the flow's page; 404 when it does not exist or ``user`` may not read it."""
    flow = restrict(JobFlow.objects.filter(name=name), user, namespace).first()
    if flow is None:
        raise Http404
    existing = set(
        Job.objects.filter(
            namespace=namespace, name__in=[job_name(name, s["name"]) for s in flow.flows]
        ).values_list("name", flat=True)
    )
    listed = {entry.get("name"): entry for entry in flow.job_status_list or []}
    templates = set(
        JobTemplate.objects.filter(
            namespace=namespace, name__in=[s["name"] for s in flow.flows]
        ).values_list("name", flat=True)
    )
    steps, states, details, urls = [], {}, {}, {}
    for step in flow.flows:
        job = job_name(name, step["name"])
        state = step_state(flow, step["name"]) if job in existing or job in listed else WAITING
        entry = listed.get(job) or {}
        targets = list((step.get("dependsOn") or {}).get("targets") or [])
        probe = _probe_words(step)
        condition = (flow.conditions or {}).get(job) or {}
        steps.append(StepRow(step["name"], job, targets, probe, state,
                             _time(entry.get("startTimestamp")), _time(entry.get("endTimestamp")),
                             _whole_seconds(condition.get("runningDuration", "")),
                             int(entry.get("restartCount", 0)), job in existing))  # fmt: skip
        states[step["name"]] = state
        waits = [_("after %(targets)s") % {"targets": ", ".join(targets)}] if targets else []
        if probe:
            waits.append(_("when %(probe)s") % {"probe": probe})
        details[step["name"]] = "; ".join(waits) or _("starts first")
        if job in existing:
            urls[step["name"]] = reverse("jobs:job_detail", args=[namespace, job])
    events = list(
        Event.objects.filter(
            involved_namespace=namespace, involved_kind="JobFlow", involved_name=name
        ).order_by("-last_timestamp", "-id")[:_EVENT_LIMIT]
    )
    return FlowPage(
        flow=flow,
        steps=steps,
        dag=layout(flow.flows, states, details, urls),
        events=events,
        templates_missing=[s["name"] for s in flow.flows if s["name"] not in templates],
        can_write=can(user, "jobflows", write=True, namespace=namespace),
    )


def cron_job_list(
    user: Any, *, namespace: str = "", filters: Mapping[str, str]
) -> QuerySet[CronJob]:
    """Return the cron jobs ``user`` may read, filtered by state and by text in the name."""
    rows: QuerySet[CronJob] = restrict(CronJob.objects.all(), user, namespace)
    state = filters.get("state", "")
    if state in ("suspended", "active"):
        rows = rows.filter(suspend=state == "suspended")
    if text := filters.get("q", "").strip():
        rows = rows.filter(name__icontains=text)
    return rows


@dataclass(slots=True)
class CronPage:
    """Everything a cron job's page shows."""

    cron: CronJob
    next_run: dt.datetime | None
    active: list[Job]
    history: list[Job]
    events: list[Event]
    can_write: bool


def cron_page(user: Any, namespace: str, name: str, now: dt.datetime) -> CronPage:
    """Return the cron job's page; 404 when it does not exist or ``user`` may not read it."""
    cron = restrict(CronJob.objects.filter(name=name), user, namespace).first()
    if cron is None:
        raise Http404
    made = (
        Job.objects.filter(namespace=namespace)
        .filter(name__startswith=f"{name}-")
        .order_by("-created_at", "-id")
    )
    mine = [
        job
        for job in made
        if any(r.get("uid") == str(cron.uid) and r.get("controller") for r in job.owner_references)
        and (SCHEDULED_ANNOTATION in job.annotations or MANUAL_ANNOTATION in job.annotations)
    ]
    active_uids = {str(ref.get("uid")) for ref in cron.active}
    events = list(
        Event.objects.filter(
            involved_namespace=namespace, involved_kind="CronJob", involved_name=name
        ).order_by("-last_timestamp", "-id")[:_EVENT_LIMIT]
    )
    return CronPage(
        cron=cron,
        next_run=next_run(cron, now),
        active=[job for job in mine if str(job.uid) in active_uids],
        history=[job for job in mine if str(job.uid) not in active_uids],
        events=events,
        can_write=can(user, "cronjobs", write=True, namespace=namespace),
    )
