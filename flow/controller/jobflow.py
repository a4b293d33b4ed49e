"""The JobFlow and JobTemplate controllers, as Volcano's behave, level-triggered.

Each pass, for every JobFlow that is Pending or Running (Volcano's state machine: a Failed or
Terminating flow is left alone; a Succeed one only has its jobs deleted when its
``jobRetainPolicy`` is ``delete``):

1. **Deploy.** A step whose job ``<flow>-<step>`` does not exist yet gets it once its
   dependencies hold: every target's job is Completed (Volcano's ``judge``), or, for a step
   with a probe, the probe passes (``flow.probes``). The job is the JobTemplate of the step's
   name with the step's ``patch`` merged over it (``flow.patch``), created through the API's
   own path (admission, defaults), labelled and annotated ``volcano.sh/createdByJobFlow`` and
   ``volcano.sh/createdByJobTemplate`` (``<namespace>.<name>``) and owned by the flow, so it
   goes when the flow is deleted. A missing template leaves the step waiting; a job the API
   refuses is a ``FailedCreate`` warning on the flow, tried again next pass.
2. **Status.** The made jobs are bucketed by phase (pending, running, completed, failed,
   terminated; any other phase is unknown, as Volcano's ``getAllJobStatus``), each with a
   condition and an entry in ``jobStatusList`` whose running history gains an entry whenever
   the job's phase changes. Pending becomes Running once a job runs or completed and none
   failed; Failed once a job failed or was terminated; Running becomes Succeed once every
   step's job Completed. The status is written only when it changed, so a second pass writes
   nothing.

The JobTemplate controller keeps each template's ``status.jobDependsOnList``: the jobs made
from it. Both read every flow, job and template in a constant number of queries.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections import defaultdict
from typing import Any

from apis.durations import format_duration
from apis.wire import format_time
from core.events import record_event
from core.models import EventType, Pod
from flow.models import FlowPhase, JobFlow, JobTemplate, RetainPolicy
from flow.patch import merge_job_spec
from flow.probes import needs_pods, probe_passes
from jobs.api.resources import JOBS
from jobs.models import Job, JobPhase
from kube.models import ChangeEvent
from kube.status import KubeError
from kube.store import object_create, object_delete

__all__ = [
    "CREATED_BY_FLOW",
    "CREATED_BY_TEMPLATE",
    "forget_last_pass",
    "job_name",
    "object_string",
    "reconcile_job_flows",
    "reconcile_job_templates",
]

logger = logging.getLogger(__name__)

CREATED_BY_FLOW = "volcano.sh/createdByJobFlow"
CREATED_BY_TEMPLATE = "volcano.sh/createdByJobTemplate"
_FINISHED = (JobPhase.COMPLETED, JobPhase.FAILED, JobPhase.TERMINATED, JobPhase.ABORTED)
_BUCKETS = {
    JobPhase.PENDING: "pending_jobs",
    JobPhase.RUNNING: "running_jobs",
    JobPhase.COMPLETED: "completed_jobs",
    JobPhase.FAILED: "failed_jobs",
    JobPhase.TERMINATED: "terminated_jobs",
}
# Completing and Terminating are known to Volcano's buckets but not listed in its status.
_UNLISTED = (JobPhase.COMPLETING, JobPhase.TERMINATING)
_STATUS = ("phase", *(*_BUCKETS.values(), "unknown_jobs"), "job_status_list", "conditions")
# The kinds whose writes can change what a pass does (a pod's phase reaches a probe through its
# job's counts, which the job controller writes).
_WATCHED = ("jobs.job", "flow.jobflow", "flow.jobtemplate")
RESYNC_SECONDS = 60.0
# The newest change event of those kinds the last pass saw, and when it ran (time.monotonic()).
_last_pass: dict[str, float] = {"change": -1.0, "at": 0.0}
_JOB_COLUMNS = ("id", "uid", "namespace", "name", "phase", "labels", "created_at",
                "last_transition_time", "retry_count", "task_status_count")  # fmt: skip


def job_name(flow: str, step: str) -> str:
    """Return the name of the job a flow's step makes (Volcano's ``getJobName``)."""
    return f"{flow}-{step}"


def object_string(namespace: str, name: str) -> str:
    """Return ``namespace.name``, the value of the createdBy labels (``GenerateObjectString``)."""
    return f"{namespace}.{name}"


def _made_jobs() -> dict[str, list[Job]]:
    """Return the jobs flows made, by the flow's ``namespace.name``."""
    by_flow: dict[str, list[Job]] = defaultdict(list)
    for job in Job.objects.filter(labels__has_key=CREATED_BY_FLOW).only(*_JOB_COLUMNS):
        by_flow[str(job.labels.get(CREATED_BY_FLOW, ""))].append(job)
    return by_flow


def _changed_since_last_pass() -> bool:
    """Return whether a job, flow or template was written since the last pass (or a resync is due).

    The controllers read only those kinds and keep no timers, so a pass after no such write
    would change nothing: one indexed look at the change stream per kind saves reading every
    flow. A full pass still runs every ``RESYNC_SECONDS`` (as informers resync).
    """
    latest = max(
        ChangeEvent.objects.filter(kind=kind).order_by("-id").values_list("id", flat=True).first()
        or 0
        for kind in _WATCHED
    )
    clock = time.monotonic()
    if latest == _last_pass["change"] and clock - _last_pass["at"] < RESYNC_SECONDS:
        return False
    _last_pass["change"], _last_pass["at"] = latest, clock
    return True


def forget_last_pass() -> None:
    """Make the next pass a full one (a test's fresh database, a benchmark's full pass)."""
    _last_pass["change"], _last_pass["at"] = -1.0, 0.0


def reconcile_job_flows(now: dt.datetime) -> int:
    """Run one pass over every flow and every template; return how many flows were written."""
    if not _changed_since_last_pass():
        return 0
    flows = list(
        JobFlow.objects.filter(deletion_timestamp__isnull=True).exclude(
            phase__in=(FlowPhase.FAILED, FlowPhase.TERMINATING)
        )
    )
    written = 0
    if flows:
        made = _made_jobs()
        templates = {
            (t.namespace, t.name): t
            for t in JobTemplate.objects.filter(namespace__in={f.namespace for f in flows})
        }
        pods = _running_pods(flows, made)
        for flow in flows:
            try:
                written += _reconcile(flow, made[object_string(flow.namespace, flow.name)],
                                      templates, pods, now)  # fmt: skip
            except Exception:  # one broken flow must not stop the others
                logger.exception("JobFlow %s/%s: reconcile failed", flow.namespace, flow.name)
    reconcile_job_templates(now)
    return written


def _running_pods(
    flows: list[JobFlow], made: dict[str, list[Job]]
) -> dict[tuple[int, str], list[dict[str, Any]]]:
    """Return the Running pods' specs by (job id, task), read only when a probe needs them."""
    probing = [f for f in flows if any(needs_pods(_probe(step)) for step in f.flows)]
    if not probing:
        return {}
    job_ids = [job.pk for f in probing for job in made[object_string(f.namespace, f.name)]]
    found: dict[tuple[int, str], list[dict[str, Any]]] = defaultdict(list)
    rows = Pod.objects.filter(job_id__in=job_ids, phase="Running").values_list(
        "job_id", "task_name", "spec"
    )
    for job_id, task, spec in rows:
        found[(int(job_id), task)].append(spec)
    return found


def _probe(step: dict[str, Any]) -> dict[str, Any] | None:
    probe = (step.get("dependsOn") or {}).get("probe")
    return probe if isinstance(probe, dict) and probe else None


def _reconcile(
    flow: JobFlow,
    jobs: list[Job],
    templates: dict[tuple[str, str], JobTemplate],
    pods: dict[tuple[int, str], list[dict[str, Any]]],
    now: dt.datetime,
) -> int:
    if flow.phase == FlowPhase.SUCCEED:
        if flow.job_retain_policy == RetainPolicy.DELETE:
            _delete_jobs(jobs)
        return 0
    by_name = {job.name: job for job in jobs}
    for step in flow.flows:
        name = job_name(flow.name, step["name"])
        if name not in by_name and _ready(flow, step, by_name, pods):
            template = templates.get((flow.namespace, step["name"]))
            if template is not None and (job := _create_job(flow, step, template, now)):
                by_name[name] = job
    return _write_status(flow, list(by_name.values()), now)


def _ready(
    flow: JobFlow,
    step: dict[str, Any],
    jobs: dict[str, Job],
    pods: dict[tuple[int, str], list[dict[str, Any]]],
) -> bool:
    """Return whether the step's dependencies hold (Volcano's ``judge``, or its probe)."""
    targets = (step.get("dependsOn") or {}).get("targets") or []
    found = [jobs.get(job_name(flow.name, target)) for target in targets]
    if any(job is None for job in found):
        return False
    if (probe := _probe(step)) is not None:
        return probe_passes(probe, found, pods)
    return all(job is not None and job.phase == JobPhase.COMPLETED for job in found)


def _create_job(
    flow: JobFlow, step: dict[str, Any], template: JobTemplate, now: dt.datetime
) -> Job | None:
    name = job_name(flow.name, step["name"])
    made_by = {
        CREATED_BY_TEMPLATE: object_string(flow.namespace, template.name),
        CREATED_BY_FLOW: object_string(flow.namespace, flow.name),
    }
    manifest = {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "namespace": flow.namespace,
            "labels": made_by,
            "annotations": dict(made_by),
            "ownerReferences": [
                {
                    "apiVersion": "flow.volcano.sh/v1alpha1",
                    "kind": "JobFlow",
                    "name": flow.name,
                    "uid": str(flow.uid),
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": merge_job_spec(template.spec, (step.get("patch") or {}).get("jobSpec")),
    }
    try:
        object_create(JOBS, manifest, namespace=flow.namespace, dry_run=False)
    except KubeError as refused:
        if refused.code != 409:  # AlreadyExists: made by an earlier pass
            record_event(flow, kind="JobFlow", reason="FailedCreate", now=now,
                         message=f"failed to create job {name}: {refused.message}",
                         event_type=EventType.WARNING)  # fmt: skip
            return None
    else:
        record_event(flow, kind="JobFlow", reason="Created", now=now,
                     message=f"create a job named {name}!")  # fmt: skip
    return Job.objects.only(*_JOB_COLUMNS).filter(namespace=flow.namespace, name=name).first()


def _delete_jobs(jobs: list[Job]) -> None:
    """Delete the flow's jobs through the API's path (their pods and PodGroup follow)."""
    for job in Job.objects.filter(pk__in=[j.pk for j in jobs]):
        try:
            object_delete(JOBS, job, dry_run=False)
        except KubeError:
            logger.warning("JobFlow: could not delete job %s/%s", job.namespace, job.name)


def _history(previous: dict[str, Any] | None, job: Job, now: dt.datetime) -> list[dict[str, Any]]:
    """Return the job's running histories: a new entry whenever its phase changed."""
    histories: list[dict[str, Any]] = [
        dict(h) for h in (previous or {}).get("runningHistories") or []
    ]
    if not job.phase:
        return histories
    if histories and histories[-1].get("state") == job.phase:
        return histories
    stamp = format_time(now)
    if histories:
        histories[-1]["endTimestamp"] = stamp
    histories.append({"startTimestamp": stamp, "state": job.phase})
    return histories


def _write_status(flow: JobFlow, jobs: list[Job], now: dt.datetime) -> int:
    before = {name: getattr(flow, name) for name in _STATUS}
    buckets: dict[str, list[str]] = {column: [] for column in (*_BUCKETS.values(), "unknown_jobs")}
    conditions: dict[str, Any] = {}
    previous = {entry.get("name"): entry for entry in flow.job_status_list or []}
    listed: list[dict[str, Any]] = []
    for job in sorted(jobs, key=lambda j: (j.created_at, j.name)):
        phase = JobPhase(job.phase) if job.phase in JobPhase.values else None
        if phase in _BUCKETS:
            buckets[_BUCKETS[phase]].append(job.name)
        elif phase not in _UNLISTED:
            buckets["unknown_jobs"].append(job.name)
        created = format_time(job.created_at)
        condition: dict[str, Any] = {"phase": job.phase, "createTime": created}
        entry: dict[str, Any] = {"name": job.name, "state": job.phase, "startTimestamp": created}
        if job.phase in _FINISHED and job.last_transition_time is not None:
            seconds = (job.last_transition_time - job.created_at).total_seconds()
            condition["runningDuration"] = format_duration(max(seconds, 0.0))
            entry["endTimestamp"] = format_time(job.last_transition_time)
        if job.task_status_count:
            condition["taskStatusCount"] = job.task_status_count
        if job.retry_count:
            entry["restartCount"] = job.retry_count
        entry["runningHistories"] = _history(previous.pop(job.name, None), job, now)
        conditions[job.name] = condition
        listed.append(entry)
    for name, column in buckets.items():
        setattr(flow, name, column)
    # Jobs gone since (deleted by hand) keep their last entry, as Volcano keeps them.
    flow.job_status_list = listed + list(previous.values())
    flow.conditions = conditions
    flow.phase = _next_phase(flow)
    changed = [name for name in _STATUS if getattr(flow, name) != before[name]]
    if not changed:
        return 0
    flow.save(update_fields=changed)
    return 1


def _next_phase(flow: JobFlow) -> str:
    """Return the flow's phase after this pass (Volcano's pending and running states)."""
    broken = bool(flow.failed_jobs or flow.terminated_jobs)
    if flow.phase == FlowPhase.RUNNING:
        if len(flow.completed_jobs) == len(flow.flows):
            return FlowPhase.SUCCEED
        return FlowPhase.FAILED if broken else FlowPhase.RUNNING
    if (flow.running_jobs or flow.completed_jobs) and not flow.failed_jobs:
        return FlowPhase.RUNNING
    return FlowPhase.FAILED if broken else FlowPhase.PENDING


def reconcile_job_templates(now: dt.datetime) -> int:
    """Keep each template's ``status.jobDependsOnList`` (the jobs made from it) current."""
    del now
    made: dict[str, list[str]] = defaultdict(list)
    for name, labels in Job.objects.filter(labels__has_key=CREATED_BY_TEMPLATE).values_list(
        "name", "labels"
    ):
        made[str(labels.get(CREATED_BY_TEMPLATE, ""))].append(name)
    written = 0
    for template in JobTemplate.objects.only("id", "namespace", "name", "job_depends_on_list"):
        names = sorted(made.get(object_string(template.namespace, template.name), []))
        if names != list(template.job_depends_on_list or []):
            template.job_depends_on_list = names
            template.save(update_fields=["job_depends_on_list"])
            written += 1
    return written
