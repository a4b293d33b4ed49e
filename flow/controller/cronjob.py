"""The CronJob controller, as Volcano's (modelled on Kubernetes' CronJob controller v2).

Each pass, for every CronJob:

1. **Finished jobs** (Completed, Failed or Terminated) leave ``status.active``
   (``SawCompletedJob``); the newest completion is ``lastSuccessfulTime``; the oldest finished
   jobs beyond ``successfulJobsHistoryLimit`` (Completed) and ``failedJobsHistoryLimit``
   (Failed) are deleted (``SuccessfulDelete``). An active reference whose job is gone is
   dropped (``StaleReference``).
2. Unless ``suspend``: the most recent schedule time since ``lastScheduleTime`` (or the
   creation) that is not older than ``startingDeadlineSeconds`` is due, once. Missed times
   are not made up: after downtime only the latest runs (more than 100 missed:
   ``TooManyMissedTimes``; one past its deadline: ``MissSchedule``). ``Forbid`` skips it
   while a job is active (``ForbidConcurrent``), ``Replace`` deletes the active jobs first
   (``ReplaceConcurrent``), ``Allow`` runs them side by side.
3. The job is ``<cron>-<scheduled time in minutes since the epoch>`` (the same time never
   makes two), with the template's labels and annotations, the
   ``volcano.sh/cronjob-scheduled-timestamp`` annotation and the cron job as its controller
   owner, created through the API's own path (``SuccessfulCreate``; a refusal is
   ``FailedCreate``, tried again next pass).

**The clock.** Schedules are read on the cluster's simulated calendar (``kube.clock``): it
agrees with the wall clock at the cron job's creation and runs ``VOLCANO_SIM_SPEED`` times
faster, so the demo's five-minute schedule fires every thirty seconds at speed 10; at speed 1
this is Kubernetes' behaviour. ``lastScheduleTime`` holds the wall time at which the
scheduled calendar time came; job names and the scheduled-timestamp annotation carry the
calendar time, in ``spec.timeZone``.

Warnings about one schedule time are recorded once per process, not every pass.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import defaultdict
from typing import Any
from zoneinfo import ZoneInfo

from apis.wire import format_time
from core.events import record_event
from core.models import EventType
from flow.models import ConcurrencyPolicy, CronJob
from flow.schedule import Schedule, ScheduleError, parse_schedule
from jobs.api.resources import JOBS
from jobs.models import Job, JobPhase
from kube.clock import from_calendar, on_calendar, speed
from kube.status import KubeError
from kube.store import object_create, object_delete

__all__ = [
    "MANUAL_ANNOTATION",
    "SCHEDULED_ANNOTATION",
    "job_from_template",
    "most_recent_schedule",
    "next_run",
    "reconcile_cron_jobs",
]

logger = logging.getLogger(__name__)

SCHEDULED_ANNOTATION = "volcano.sh/cronjob-scheduled-timestamp"
# What ``kubectl create job --from=cronjob/x`` puts on the job it makes.
MANUAL_ANNOTATION = "cronjob.kubernetes.io/instantiate"
TOO_MANY_MISSED = 100
_FINISHED = (JobPhase.COMPLETED, JobPhase.FAILED, JobPhase.TERMINATED)
_STATUS = ("active", "last_schedule_time", "last_successful_time")
_JOB_COLUMNS = ("id", "uid", "namespace", "name", "phase", "annotations", "owner_references",
                "created_at", "last_transition_time", "resource_version")  # fmt: skip
# (cron uid, reason, calendar time) of the warnings already recorded by this process.
_warned: set[tuple[str, str, str]] = set()
# Per cron job uid: what its next schedule time was computed from, and that time.
_next_due: dict[str, tuple[tuple[Any, ...], dt.datetime]] = {}


def _controller_uid(job: Job) -> str:
    for ref in job.owner_references or []:
        if ref.get("controller") and ref.get("kind") == "CronJob":
            return str(ref.get("uid", ""))
    return ""


def _owned_jobs() -> dict[str, list[Job]]:
    """Return the jobs cron jobs made (scheduled or by hand), by their owner's uid."""
    found: dict[str, list[Job]] = defaultdict(list)
    made = Job.objects.filter(annotations__has_key=SCHEDULED_ANNOTATION) | Job.objects.filter(
        annotations__has_key=MANUAL_ANNOTATION
    )
    for job in made.only(*_JOB_COLUMNS):
        if uid := _controller_uid(job):
            found[uid].append(job)
    return found


def most_recent_schedule(
    schedule: Schedule, earliest: dt.datetime, now: dt.datetime, zone: str
) -> tuple[dt.datetime | None, int]:
    """Return the latest schedule time in ``(earliest, now]`` and how many there were.

    As Kubernetes counts them: past two, the count comes from the period between the first two
    times, and the latest is found by walking from just before it.
    """
    first = schedule.next_after(earliest, zone)
    if now < first:
        return None, 0
    second = schedule.next_after(first, zone)
    if now < second:
        return first, 1
    period = max(round((second - first).total_seconds()), 1)
    missed = int((now - first).total_seconds()) // period + 1
    moment = first + dt.timedelta(seconds=(missed - 2) * period)
    latest: dt.datetime | None = None
    while (moment := schedule.next_after(moment, zone)) <= now:
        latest = moment
    return latest, missed


def job_name(cron: CronJob, scheduled: dt.datetime) -> str:
    """Return the job's name for one schedule time (Volcano's ``getJobName``)."""
    return f"{cron.name}-{int(scheduled.timestamp()) // 60}"


def job_from_template(cron: CronJob, name: str, annotations: dict[str, str]) -> dict[str, Any]:
    """Return the manifest of a job of ``cron``'s template, owned by it."""
    template = cron.job_template or {}
    meta = template.get("metadata") or {}
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "namespace": cron.namespace,
            "labels": dict(meta.get("labels") or {}),
            "annotations": {**(meta.get("annotations") or {}), **annotations},
            "ownerReferences": [
                {
                    "apiVersion": "batch.volcano.sh/v1alpha1",
                    "kind": "CronJob",
                    "name": cron.name,
                    "uid": str(cron.uid),
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": template.get("spec") or {},
    }


def reference(job: Job) -> dict[str, str]:
    """Return ``job`` as an ``ObjectReference`` for ``status.active``."""
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "name": job.name,
        "namespace": job.namespace,
        "uid": str(job.uid),
        "resourceVersion": str(job.resource_version),
    }


def reconcile_cron_jobs(now: dt.datetime) -> int:
    """Run one pass over every cron job; return how many were written."""
    # The template is read only by the cron jobs that make a job this pass.
    crons = list(CronJob.objects.filter(deletion_timestamp__isnull=True).defer("job_template"))
    if not crons:
        return 0
    owned = _owned_jobs()
    written = 0
    for cron in crons:
        try:
            written += _reconcile(cron, owned.get(str(cron.uid), []), now)
        except Exception:  # one broken cron job must not stop the others
            logger.exception("CronJob %s/%s: reconcile failed", cron.namespace, cron.name)
    return written


def _warn_once(cron: CronJob, reason: str, at: str, message: str, now: dt.datetime) -> None:
    key = (str(cron.uid), reason, at)
    if key not in _warned:
        _warned.add(key)
        record_event(cron, kind="CronJob", reason=reason, message=message, now=now,
                     event_type=EventType.WARNING)  # fmt: skip


def _event(cron: CronJob, reason: str, message: str, now: dt.datetime) -> None:
    record_event(cron, kind="CronJob", reason=reason, message=message, now=now)


def _delete(cron: CronJob, job: Job, now: dt.datetime) -> bool:
    """Delete one of the cron job's jobs through the API's path; return whether it went."""
    stored = Job.objects.filter(pk=job.pk).first()
    if stored is None:
        return True
    try:
        object_delete(JOBS, stored, dry_run=False)
    except KubeError as refused:
        _warn_once(cron, "FailedDelete", job.name,
                   f'Error deleting job "{job.name}": {refused.message}', now)  # fmt: skip
        return False
    cron.active = [ref for ref in cron.active if ref.get("uid") != str(job.uid)]
    _event(cron, "SuccessfulDelete", f'Deleted job "{job.name}"', now)
    return True


def _finished(cron: CronJob, jobs: list[Job], now: dt.datetime) -> list[Job]:
    """Handle finished jobs (active list, last success, history); return those still there."""
    active = {str(ref.get("uid")) for ref in cron.active}
    succeeded, failed = [], []
    for job in jobs:
        if job.phase not in _FINISHED:
            continue
        if str(job.uid) in active:
            cron.active = [ref for ref in cron.active if ref.get("uid") != str(job.uid)]
            _event(cron, "SawCompletedJob", f"Saw completed job: {job.name} in active, remove",
                   now)  # fmt: skip
        if job.phase == JobPhase.COMPLETED:
            finish = job.last_transition_time
            last = cron.last_successful_time
            if finish is not None and (last is None or finish > last):
                cron.last_successful_time = finish
            succeeded.append(job)
        elif job.phase == JobPhase.FAILED:
            failed.append(job)
    gone: set[int] = set()
    for kept, limit in ((succeeded, cron.successful_jobs_history_limit),
                        (failed, cron.failed_jobs_history_limit)):  # fmt: skip
        surplus = sorted(kept, key=lambda j: (j.created_at, j.name))[: max(len(kept) - limit, 0)]
        gone |= {job.pk for job in surplus if _delete(cron, job, now)}
    return [job for job in jobs if job.pk not in gone]


def _stale(cron: CronJob, jobs: list[Job], now: dt.datetime) -> None:
    """Drop active references whose job no longer exists (``StaleReference``)."""
    present = {str(job.uid) for job in jobs}
    for ref in list(cron.active):
        if str(ref.get("uid")) not in present:
            cron.active = [r for r in cron.active if r is not ref]
            _event(cron, "StaleReference",
                   f'Active job "{ref.get("name")}" no longer exists (UID: {ref.get("uid")})',
                   now)  # fmt: skip


def _reconcile(cron: CronJob, jobs: list[Job], now: dt.datetime) -> int:
    before = {name: getattr(cron, name) for name in _STATUS}
    cron.active = [dict(ref) for ref in cron.active or []]
    jobs = _finished(cron, jobs, now)
    _stale(cron, jobs, now)
    if not cron.suspend:
        _schedule(cron, jobs, now)
    changed = [name for name in _STATUS if getattr(cron, name) != before[name]]
    if not changed:
        return 0
    cron.save(update_fields=changed)
    return 1


def _schedule(cron: CronJob, jobs: list[Job], now: dt.datetime) -> None:
    try:
        schedule = parse_schedule(cron.schedule)
    except ScheduleError as exc:
        _warn_once(cron, "InvalidSchedule", cron.schedule,
                   f"Error getting schedule time: {exc}", now)  # fmt: skip
        return
    anchor = cron.created_at
    calendar_now = on_calendar(now, anchor)
    earliest = on_calendar(cron.last_schedule_time, anchor) if cron.last_schedule_time else anchor
    # Nothing is due before the first time after the last run: remembered per cron job until
    # its schedule, zone, last run or the clock's speed changes.
    key = (cron.schedule, cron.time_zone, earliest, speed())
    remembered = _next_due.get(str(cron.uid))
    if remembered is not None and remembered[0] == key and calendar_now < remembered[1]:
        return
    _next_due[str(cron.uid)] = (key, schedule.next_after(earliest, cron.time_zone))
    unlimited, _ = most_recent_schedule(schedule, earliest, calendar_now, cron.time_zone)
    if cron.starting_deadline_seconds is not None:
        deadline = calendar_now - dt.timedelta(seconds=cron.starting_deadline_seconds)
        earliest = max(earliest, deadline)
    scheduled, missed = most_recent_schedule(schedule, earliest, calendar_now, cron.time_zone)
    if scheduled is None:
        if unlimited is not None:
            _warn_once(cron, "MissSchedule", format_time(unlimited),
                       f"Missed scheduled time to start a job: {format_time(unlimited)}", now)  # fmt: skip
        return
    if missed > TOO_MANY_MISSED:
        _warn_once(cron, "TooManyMissedTimes", format_time(scheduled),
                   "too many missed start times. Set or decrease .spec.startingDeadlineSeconds "
                   "or check clock skew", now)  # fmt: skip
    name = job_name(cron, scheduled)
    if any(ref.get("name") == name for ref in cron.active):
        return
    if cron.last_schedule_time and on_calendar(cron.last_schedule_time, anchor) == scheduled:
        return
    if cron.active and cron.concurrency_policy == ConcurrencyPolicy.FORBID:
        _warn_once(cron, "ForbidConcurrent", format_time(scheduled),
                   "Skipping job creation because another job is already running", now)  # fmt: skip
        return
    if cron.active and cron.concurrency_policy == ConcurrencyPolicy.REPLACE:
        _event(cron, "ReplaceConcurrent", "Replacing active job for CronJob", now)
        active = {str(ref.get("uid")) for ref in cron.active}
        for old in jobs:
            if str(old.uid) in active and not _delete(cron, old, now):
                return
    made = _create(cron, name, scheduled, now)
    if made is None:
        return
    if not any(ref.get("uid") == str(made.uid) for ref in cron.active):
        cron.active.append(reference(made))
    cron.last_schedule_time = from_calendar(scheduled, anchor)


def _create(cron: CronJob, name: str, scheduled: dt.datetime, now: dt.datetime) -> Job | None:
    zone = ZoneInfo(cron.time_zone) if cron.time_zone else dt.UTC
    stamp = scheduled.astimezone(zone).isoformat(timespec="seconds").replace("+00:00", "Z")
    manifest = job_from_template(cron, name, {SCHEDULED_ANNOTATION: stamp})
    try:
        object_create(JOBS, manifest, namespace=cron.namespace, dry_run=False)
    except KubeError as refused:
        if refused.code != 409:
            _warn_once(cron, "FailedCreate", name, f"Failed to create job: {refused.message}", now)
            return None
        existing = (
            Job.objects.only(*_JOB_COLUMNS).filter(namespace=cron.namespace, name=name).first()
        )
        if existing is None or existing.phase in _FINISHED:
            return None
        if _controller_uid(existing) != str(cron.uid):
            _warn_once(cron, "ForeignJob", name,
                       f"Job {name} exists but is not owned by this CronJob", now)  # fmt: skip
            return None
        return existing
    _event(cron, "SuccessfulCreate",
           f"Created job {name} for CronJob {cron.namespace}/{cron.name}", now)  # fmt: skip
    return Job.objects.only(*_JOB_COLUMNS).filter(namespace=cron.namespace, name=name).first()


def next_run(cron: CronJob, now: dt.datetime) -> dt.datetime | None:
    """Return the wall time of the cron job's next scheduled run; None when suspended."""
    if cron.suspend:
        return None
    try:
        schedule = parse_schedule(cron.schedule)
    except ScheduleError:
        return None
    anchor = cron.created_at
    calendar_now = on_calendar(now, anchor)
    return from_calendar(schedule.next_after(calendar_now, cron.time_zone), anchor)
