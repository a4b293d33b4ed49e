"""One reconcile pass over one job, and over all of them (the worker's entry point).

Each job is reconciled with its row locked, in its own transaction (or savepoint, in a
pass's batch) (Volcano shards requests by job so one job is never handled twice at once;
the lock is our equivalent across processes):

1. A finished job whose TTL has passed is deleted (with its tasks, pods, PodGroup).
2. Read the job's tasks, pods and PodGroup into a ``JobContext``.
3. Take its new Commands (each deleted before it acts, so at most once, with a
   ``CommandIssued`` event) and derive the pod/PodGroup events.
4. Evictions: a pod someone deleted (a ``PodEviction`` record, ``jobs.evictions``) or
   marked for deletion (``deletion_time``) is a ``PodEvicted`` event; a marked pod's row
   is removed here once the kubelet stopped it (it is terminating until then).
5. Delayed actions (``delays``): drop the timers whose pod recovered, fire the due ones.
   Resolve each request to an action (``policies.resolve_action``); arm a timer for a
   policy with a timeout, execute the others against the current phase (``states.execute``).
6. If nothing acted, SyncJob: create the PodGroup / pods, count, phase rules.

One transition per pass and job: a phase the pass entered is acted upon by the
next pass, so transient phases are visible for at least one period. A pass over
a settled world writes nothing.

``reconcile_all`` reconciles only the jobs that may have something to do, as Volcano's
controller handles only the keys its informers queued: those whose Job, pods or PodGroup
changed since the last pass (read from the change stream, ``notices``), those whose last pass
changed something, depends on the clock (a TTL or a policy timeout) or failed, and those with a
Command or an eviction waiting. A level-triggered pass over unchanged rows is a no-op, so the
skip only saves time: with 5,000 settled jobs and 200,000 pods a pass with nothing to do reads
a handful of rows instead of aggregating every pod. A full pass reconciles every job: a new
process's first, the periodic resync's, and any pass for which the stream cannot say what
changed (pruned past the last pass, or another database).

The jobs a pass reconciles are taken in batches of ``prefetch.BATCH``: one transaction per
batch locks the batch's job rows and reads their tasks, pods, PodGroups and pending warnings in
one query each (``prefetch.read_batch``), then reconciles each job in a savepoint, so a job whose
reconcile raises is undone alone. Every read still follows the job's lock, as when a job is
reconciled alone (``reconcile_job``); only the commit is shared. Commands are looked for only
when the pass's start saw one waiting (a Command issued during the pass is taken by the next
one), and ``PodEviction`` records likewise.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from django.conf import settings
from django.db import transaction

from core.events import record_event
from core.models import ClassTable, Event, EventType, Pod, PodPhase, priority_class_table
from jobs.controller import delete_retries
from jobs.controller.context import FINISHED_PHASES, JobContext
from jobs.controller.delays import arm, cancel_recovered, cancel_same_scope, fire, take_due
from jobs.controller.notices import Notices
from jobs.controller.policies import SYNC_JOB, resolve_action
from jobs.controller.prefetch import BATCH, JobRows, read_batch
from jobs.controller.queue_commands import reconcile_queue_commands
from jobs.controller.requests import Request, observe_pods, take_commands, take_evictions
from jobs.controller.states import execute
from jobs.controller.ttl import ttl_expired
from jobs.models import Command, Job, PodEviction, TargetKind, TaskSpec
from kube import failpoints
from queues.controller.normal_pods import reconcile_normal_pods

__all__ = ["JobResult", "ReconcileReport", "reconcile_all", "reconcile_job"]

logger = logging.getLogger(__name__)


@dataclass
class JobResult:
    """What one pass did to one job."""

    key: str
    changed: bool = False
    transitions: list[str] = field(default_factory=list)
    pods_created: int = 0
    pods_deleted: int = 0
    commands: int = 0
    deleted_by_ttl: bool = False
    timed: bool = False  # depends on the clock (TTL or a policy timeout): never skipped


@dataclass
class ReconcileReport:
    """What one pass over every job (and queue) did, for the worker's logs and metrics."""

    now: dt.datetime
    jobs: int = 0
    skipped: int = 0
    changed_jobs: list[str] = field(default_factory=list)
    transitions: dict[str, list[str]] = field(default_factory=dict)
    pods_created: int = 0
    pods_deleted: int = 0
    commands: int = 0
    ttl_deleted: list[str] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)
    queue_transitions: dict[str, list[str]] = field(default_factory=dict)
    pod_groups_created: int = 0  # implicit PodGroups of pods outside VolcanoJobs (normal_pods)
    duration_ms: float = 0.0

    @property
    def changed(self) -> bool:
        """Return whether the pass wrote anything."""
        return bool(
            self.changed_jobs
            or self.ttl_deleted
            or self.queue_transitions
            or self.commands
            or self.pod_groups_created
        )

    def add(self, result: JobResult) -> None:
        """Fold one job's result into the report."""
        self.jobs += 1
        if result.changed:
            self.changed_jobs.append(result.key)
        if result.transitions:
            self.transitions[result.key] = result.transitions
        if result.deleted_by_ttl:
            self.ttl_deleted.append(result.key)
        self.pods_created += result.pods_created
        self.pods_deleted += result.pods_deleted
        self.commands += result.commands


def reconcile_job(
    job: Job | int,
    now: dt.datetime,
    *,
    classes: ClassTable | None = None,
    commands: bool = True,
    tasks: tuple[int, list[TaskSpec]] | None = None,
    evictions: bool = True,
    pending_warnings: set[str] | None = None,
) -> JobResult:
    """Reconcile one job (a row or its primary key) at time ``now``; see the module doc.

    ``classes``: every PriorityClass, when the caller read them already (once per pass).
    ``commands``: whether to look for the job's Commands (False: the caller knows of none).
    ``evictions``: the same for its ``PodEviction`` records.
    ``pending_warnings``: the messages of its ``PodGroupPending`` warnings, as the caller read
    them (None: read here when needed).
    ``tasks``: the job's resourceVersion and its tasks as the caller read them; used only
    if the locked row still has that version.
    """
    pk = job if isinstance(job, int) else job.pk
    with transaction.atomic():
        try:
            # get() orders nothing: the row is found by its key.
            row = Job.objects.select_for_update().get(pk=pk)
        except Job.DoesNotExist:
            return JobResult(key=f"#{pk}")
        known = tasks[1] if tasks is not None and tasks[0] == row.resource_version else None
        return _reconcile_row(
            row,
            now,
            partial(_load, row, now, classes, JobRows.read(row, known)),
            commands=commands,
            evictions=evictions,
            pending_warnings=pending_warnings,
        )


def _reconcile_row(
    row: Job,
    now: dt.datetime,
    load: Callable[[], JobContext],
    *,
    commands: bool,
    evictions: bool,
    pending_warnings: set[str] | None,
    events: list[Event] | None = None,
) -> JobResult:
    """Reconcile the locked job ``row`` (inside the caller's transaction); ``load`` builds its
    context from rows read after the lock."""
    result = JobResult(key=f"{row.namespace}/{row.name}")
    if ttl_expired(row, now):
        record_event(
            row,
            kind="Job",
            reason="TTLExpired",
            message="ttlSecondsAfterFinished passed; deleted",
            now=now,
        )
        Job.objects.filter(pk=row.pk, uid=row.uid).delete()
        result.changed = result.deleted_by_ttl = True
        return result
    ctx = load()
    ctx.pending_warnings = pending_warnings
    ctx.events = events
    failpoints.hit("controller.job-read")
    requests = take_commands(row, now) if commands else []
    failpoints.hit("controller.command-taken", when=bool(requests))
    result.commands = len(requests)
    evicted = take_evictions(row) if evictions else []
    ctx.changed = ctx.changed or bool(evicted)
    requests += evicted + observe_pods(ctx)
    delayed = _has_timeouts(ctx)  # only such a job can have timers: skip two queries
    if delayed:
        cancel_recovered(ctx, requests)
        requests = take_due(ctx) + requests
    for pod in [p for p in ctx.pods.values() if _stopped_deletion(p)]:
        if ctx.delete_pod(pod):
            ctx.finalized_evictions += 1
            ctx.deleted += 1
    acted = False
    for request in requests:
        if request.timer is not None and not fire(ctx, request):
            continue  # cancelled by an action this pass executed
        action, delay = resolve_action(ctx, request)
        if action == SYNC_JOB:
            continue
        if delay is not None:
            arm(ctx, request, action, delay)
            continue
        before = (row.phase, row.version, row.retry_count, ctx.deleted)
        execute(ctx, action, request)
        acted = True
        if delayed:
            cancel_same_scope(ctx, action, request)
        if request.timer is not None:
            continue  # a timer firing: Volcano records nothing more
        if (row.phase, row.version, row.retry_count, ctx.deleted) != before:
            record_event(
                row,
                kind="Job",
                reason="ExecuteAction",
                message=f"Start to execute action {action} ({request.source or request.event})",
                now=now,
                known=ctx.events,
            )
    if not acted:
        execute(ctx, SYNC_JOB, Request("OutOfSync"))
    _account_deletes(ctx)
    result.changed = ctx.changed or bool(result.commands)
    result.transitions = ctx.transitions
    result.pods_created, result.pods_deleted = ctx.created, ctx.deleted
    # A job waiting to retry a delete depends on the clock: never skipped as settled.
    result.timed = _timed(ctx) or bool(ctx.failed_deletes)
    return result


def _account_deletes(ctx: JobContext) -> None:
    """Count a pass whose pod deletes failed; warn once the retry budget is spent."""
    job = ctx.job
    errors = [error for error in ctx.failed_deletes.values() if error]
    if job.uid is None:
        return
    if not errors:
        if not ctx.failed_deletes:
            delete_retries.succeeded(job.uid)
        return
    retry = delete_retries.failed(job.uid, ctx.now, list(ctx.failed_deletes), errors[0])
    if retry.failures == delete_retries.BUDGET:
        record_event(
            job,
            kind="Job",
            reason="FailedDelete",
            message=(
                f"could not delete pods {', '.join(retry.pods)} after {retry.failures} attempts: "
                f"{retry.error}; retrying every {delete_retries.CAP:.0f}s at most"
            ),
            now=ctx.now,
            event_type=EventType.WARNING,
        )


def _has_timeouts(ctx: JobContext) -> bool:
    """Return whether a policy of the job or of a task has a timeout (arms delayed actions).

    Policies cannot change after creation (admission), so a job without one never has timers.
    """
    policies = [*ctx.job.policies, *(p for task in ctx.tasks for p in task.policies)]
    return any(policy.get("timeout") for policy in policies)


def _stopped_deletion(pod: Pod) -> bool:
    """Return whether a pod marked for deletion is gone for good: its containers exited.

    A deleted pod stays Running (terminating) through its grace period until the kubelet
    stops it; only then does its row go, as the API server removes it.
    """
    if pod.deletion_time is None:
        return False
    return pod.node_id is None or pod.phase not in (PodPhase.PENDING, PodPhase.RUNNING)


def _timed(ctx: JobContext) -> bool:
    job = ctx.job
    if job.ttl_seconds_after_finished is not None and job.phase in FINISHED_PHASES:
        return True
    return _has_timeouts(ctx)


def _load(job: Job, now: dt.datetime, classes: ClassTable | None, rows: JobRows) -> JobContext:
    for task in rows.tasks:
        task.job = job  # the locked row, not a second copy
    # By name, as the model's ordering gave them (one namespace), sorted here: the ORDER BY
    # compiled per job cost a fifth of a pass over jobs whose pods just changed.
    pods = {pod.name: pod for pod in sorted(rows.pods, key=lambda pod: pod.name)}
    table = classes if classes is not None else priority_class_table()
    return JobContext(
        job=job,
        tasks=rows.tasks,
        pods=pods,
        pod_group=rows.group,
        now=now,
        classes=table.values,
        default_priority=table.default_value,
        priority_classes=table,
    )


# The jobs whose last pass changed something, depends on the clock or failed: looked at again
# in the next pass whatever the change stream says. Every other job is settled.
_unsettled: set[int] = set()
_notices = Notices()  # where the last pass left the change stream (``notices``)
_last_resync: dt.datetime | None = None  # the clock of the last full pass (_resync_due)


def _restart() -> None:
    """Forget what the controller keeps in memory, as a new worker process starts."""
    global _last_resync
    _unsettled.clear()
    _notices.forget()
    _last_resync = None


def _with_commands() -> tuple[set[int], set[int]]:
    """Return the pks of jobs that have an unprocessed Command or a pod eviction to react to,
    and of those with a pod eviction."""
    evicted = set(PodEviction.objects.order_by().values_list("job_id", flat=True).distinct())
    targets = set(
        Command.objects.filter(target_kind=TargetKind.JOB, processed=False).values_list(
            "namespace", "target_name"
        )
    )
    if not targets:
        return evicted, evicted
    names = {name for _, name in targets}
    return evicted, evicted | {
        pk
        for pk, namespace, name in Job.objects.filter(name__in=names).values_list(
            "pk", "namespace", "name"
        )
        if (namespace, name) in targets
    }


def _orphan_commands(now: dt.datetime) -> int:
    """Delete the job Commands whose job does not exist (Volcano drops them), with a warning."""
    count = 0
    with transaction.atomic():
        for command in Command.objects.select_for_update().filter(
            target_kind=TargetKind.JOB, processed=False
        ):
            if Job.objects.filter(namespace=command.namespace, name=command.target_name).exists():
                continue
            if not Command.objects.filter(pk=command.pk).delete()[0]:
                continue
            record_event(
                command,
                kind="Command",
                reason="TargetNotFound",
                message=f"job {command.namespace}/{command.target_name} does not exist",
                now=now,
                event_type=EventType.WARNING,
            )
            count += 1
    return count


def _noticed(changed: set[int], waiting: set[int]) -> set[int]:
    """Return the jobs the change stream named that the pass takes (a notification each).

    The ``controller.drop-pod-change`` failpoint drops every N-th such notification: the job is
    then left alone until it changes again or the periodic resync (``_resync_due``) reconciles
    every job, as an informer's resync repairs a lost event.
    """
    return {pk for pk in changed if pk in _unsettled or pk in waiting or not failpoints.dropped()}


def _resync_due(now: dt.datetime) -> bool:
    """Return True once every ``VOLCANO_CONTROLLER_RESYNC`` seconds (default 300) of ``now``.

    A full pass then reconciles every job, settled or not: what a dropped notification left
    behind is repaired within one period (Kubernetes' informers resync the same way). Measured
    on the pass's clock, so a process's first pass is full and fixed test clocks never resync;
    five minutes by default, as a full pass over thousands of settled jobs is not free.
    """
    global _last_resync
    period = dt.timedelta(seconds=float(getattr(settings, "VOLCANO_CONTROLLER_RESYNC", 300.0)))
    if _last_resync is not None and now - _last_resync < period:
        return False
    _last_resync = now
    return True


def _reconcile_batch(
    pks: list[int],
    now: dt.datetime,
    classes: ClassTable | None,
    waiting: set[int],
    evicted: set[int],
) -> list[tuple[int, JobResult | str]]:
    """Reconcile the jobs ``pks`` in one transaction, each in a savepoint; return each job's
    result, or the error its reconcile raised (its writes undone, the others kept).

    The jobs are locked and their rows read together (``prefetch.read_batch``); a job deleted
    since the pass listed it gives an empty result, as ``reconcile_job`` does.
    """
    out: list[tuple[int, JobResult | str]] = []
    with transaction.atomic():
        batch = read_batch(pks)
        for pk in pks:
            row = batch.jobs.get(pk)
            if row is None:
                out.append((pk, JobResult(key=f"#{pk}")))
                continue
            rows = batch.rows[pk]
            try:
                with transaction.atomic():
                    result = _reconcile_row(
                        row,
                        now,
                        partial(_load, row, now, classes, rows),
                        commands=pk in waiting,
                        evictions=pk in evicted,
                        pending_warnings=batch.pending_warnings[pk],
                        events=batch.events[pk],
                    )
            except Exception as exc:  # one bad job must not stop the others
                logger.exception("reconciling job #%s failed", pk)
                out.append((pk, f"{type(exc).__name__}: {exc}"))
                continue
            out.append((pk, result))
    return out


def reconcile_all(now: dt.datetime | None = None, *, full: bool = False) -> ReconcileReport:
    """Reconcile the jobs that need it, then every queue, at ``now`` (default: the current time).

    A job is reconciled when its objects changed since the last pass (the change stream,
    ``notices``), when its last pass changed something or depends on the clock, or when it has
    a Command or an eviction waiting; every job on a full pass: ``full``, the periodic resync,
    or when the stream cannot say what changed. A job whose pass raises is logged and reported
    in ``errors``; the others go on.
    """
    failpoints.refresh()
    now = now or failpoints.now()
    full = _resync_due(now) or full
    started = time.perf_counter()
    report = ReconcileReport(now=now)
    report.commands += _orphan_commands(now)
    changed, mark = _notices.read()
    evicted, waiting = _with_commands()
    if full or changed is None:
        jobs = Job.objects.order_by()
    else:
        wanted = _noticed(changed, waiting) | _unsettled | waiting
        jobs = (
            Job.objects.filter(pk__in=sorted(wanted)).order_by() if wanted else Job.objects.none()
        )
    listed = set(jobs.values_list("pk", flat=True))
    todo = sorted(listed)
    report.skipped = (len(listed) if full or changed is None else Job.objects.count()) - len(todo)
    classes = priority_class_table() if todo else None
    for start in range(0, len(todo), BATCH):
        results = _reconcile_batch(todo[start : start + BATCH], now, classes, waiting, evicted)
        for pk, result in results:  # committed: the batch's transaction has ended
            if isinstance(result, str):
                report.jobs += 1
                report.errors[f"#{pk}"] = result
                _unsettled.add(pk)
                continue
            report.add(result)
            failpoints.hit("controller.pods-committed", when=result.pods_created > 0)
            if result.changed or result.timed:
                _unsettled.add(pk)
            else:
                _unsettled.discard(pk)
    _unsettled.intersection_update(listed)  # a job deleted meanwhile is forgotten
    if mark is not None:
        _notices.advance(mark)
    report.pod_groups_created = reconcile_normal_pods(now)
    report.queue_transitions = reconcile_queue_commands(now)
    report.duration_ms = (time.perf_counter() - started) * 1000
    if report.changed:
        logger.info(
            "reconciled %d jobs: %d changed, %d pods created, %d deleted, %d commands",
            report.jobs,
            len(report.changed_jobs),
            report.pods_created,
            report.pods_deleted,
            report.commands,
        )
    return report
