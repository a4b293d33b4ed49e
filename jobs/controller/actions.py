"""The three primitives every phase is built from: SyncJob, KillJob and KillTarget.

- ``sync_job``: create the PodGroup while Pending (correct its drift later);
  once the scheduler has admitted it (phase past Pending) create the missing
  pods, respecting ``dependsOn``; delete pods above a task's replicas; count;
  let the phase's rule decide the phase; write the status if it changed.
- ``kill_job``: bump ``status.version``, delete every pod except finished ones
  when retaining (Soft; forced on the last retry), delete the PodGroup.
- ``kill_target``: delete some pods only (a task's, or one), keep the PodGroup.

Pods are deleted with grace period 0 (the row goes), and count as terminating
for the pass that deleted them, so a transient phase (Restarting, Aborting...)
lasts at least one pass and clients see it.

Deviation from Volcano: a kill that finds nothing to delete (no live pod, no
PodGroup) while draining or finished does not bump the version, so a settled
job's reconcile writes nothing (level-triggered idempotence).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable

from core.events import record_event
from core.manifests.pod_status import containers_ready
from core.models import EventType, Pod, PodPhase
from jobs.controller.context import FINISHED_PHASES, JobContext, StatusCounts
from jobs.controller.podgroup import ensure_pod_group, record_pod_group_pending
from jobs.controller.pods import render_pod, warn_unclaimed_volumes
from jobs.controller.secrets import delete_ssh_secret, ensure_ssh_secret
from jobs.controller.svc import delete_svc_objects, sync_svc_objects
from jobs.models import JobPhase
from kube.changes import record_rows
from kube.models import ChangeType
from queues.models import PodGroupPhase

__all__ = ["RETAIN_NONE", "RETAIN_SOFT", "UpdateFn", "kill_job", "kill_target", "sync_job"]

UpdateFn = Callable[[JobContext], None]
RETAIN_NONE: frozenset[str] = frozenset()
RETAIN_SOFT: frozenset[str] = frozenset({PodPhase.SUCCEEDED, PodPhase.FAILED})
STATUS_FIELDS = (
    "pending",
    "running",
    "succeeded",
    "failed",
    "terminating",
    "unknown",
)
PLUGIN_MARKER = "plugin-"


def _fresh_counts(ctx: JobContext) -> None:
    ctx.counts = StatusCounts(terminating=ctx.finalized_evictions)


def sync_job(ctx: JobContext, update: UpdateFn) -> None:
    """Reconcile the job's PodGroup and pods to its spec, then apply ``update``."""
    job = ctx.job
    if not job.phase:
        ctx.set_phase(JobPhase.PENDING)
    initiating = job.phase == JobPhase.PENDING
    if initiating:
        warn_unclaimed_volumes(ctx)
        markers = {f"{PLUGIN_MARKER}{name}": name for name in job.plugins if name in ("svc", "ssh")}
        if any(job.controlled_resources.get(key) != value for key, value in markers.items()):
            job.controlled_resources = {**job.controlled_resources, **markers}
    if job.phase not in FINISHED_PHASES:
        ensure_pod_group(ctx, create=initiating)
        sync_svc_objects(ctx, initiating=initiating)  # the hosts the pods will mount
    _fresh_counts(ctx)
    group = ctx.pod_group
    record_pod_group_pending(ctx)
    if group is not None and group.phase != PodGroupPhase.PENDING:
        _create_missing_pods(ctx)
    _delete_surplus_pods(ctx)
    for pod in ctx.pods.values():
        if pod.name not in ctx.failed_deletes:  # counted terminating already
            ctx.counts.count(pod)
    update(ctx)
    save_status(ctx)


def _create_missing_pods(ctx: JobContext) -> None:
    new: list[Pod] = []
    missing_classes: set[str] = set()
    for task in ctx.tasks:
        names = [f"{ctx.job.name}-{task.name}-{i}" for i in range(task.replicas)]
        if all(name in ctx.pods for name in names):
            continue
        if not _depends_on_ready(ctx, task.depends_on):
            continue
        ensure_ssh_secret(ctx)  # the Secret the pods mount, in the same transaction
        for index, name in enumerate(names):
            if name in ctx.pods:
                continue
            pod, class_found = render_pod(ctx, task, index)
            if not class_found:
                missing_classes.add(str(pod.spec.get("priorityClassName")))
            pod.uid = uuid.uuid4()
            new.append(pod)
    if not new:
        return
    created = Pod.objects.bulk_create(new)
    # bulk_create sends no signals: record the new pods so watchers see them ADDED.
    record_rows(Pod, [pod.pk for pod in created], ChangeType.ADDED)
    for pod in created:
        ctx.pods[pod.name] = pod
    ctx.created += len(new)
    ctx.changed = True
    for name in sorted(missing_classes):
        record_event(
            ctx.job,
            kind="Job",
            reason="PriorityClassNotFound",
            message=f"no PriorityClass with name {name} was found; its pods get priority 0",
            now=ctx.now,
            event_type=EventType.WARNING,
        )


def _depends_on_ready(ctx: JobContext, depends_on: dict[str, object] | None) -> bool:
    """Return whether a task's prerequisites are ready (Volcano's waitDependsOnTaskMeetCondition).

    A prerequisite task is ready when at least its minAvailable pods (its replicas without
    one, as Volcano's webhook defaults it) are Running with every container ready, or
    Succeeded (Volcano's ``isDependsOnPodsReady``); ``iteration: any`` needs one ready task,
    otherwise all. Deviation: Volcano counts a Succeeded pod only if its containers report
    ready, which a finished container never does; a prerequisite that finished counts here.
    """
    if not depends_on:
        return True
    names = [str(name) for name in depends_on.get("name") or []]  # type: ignore[attr-defined]
    ready = []
    for name in names:
        task = ctx.task(name)
        if task is None:
            ready.append(True)
            continue
        done = sum(
            1
            for pod in ctx.pods.values()
            if pod.task_name == name and (pod.phase == PodPhase.SUCCEEDED or containers_ready(pod))
        )
        need = task.replicas if task.min_available is None else task.min_available
        ready.append(done >= need)
    if depends_on.get("iteration") == "any":
        return any(ready) if ready else True
    return all(ready)


def _delete_surplus_pods(ctx: JobContext) -> None:
    """Delete pods of tasks that shrank (index ≥ replicas) or no longer exist."""
    replicas = {task.name: task.replicas for task in ctx.tasks}
    for pod in list(ctx.pods.values()):
        if pod.task_index >= replicas.get(pod.task_name, 0) and ctx.delete_pod(pod):
            ctx.deleted += 1


def kill_job(
    ctx: JobContext, retain: frozenset[str], update: UpdateFn, *, transition: bool
) -> None:
    """Tear the job down: every pod not retained, and the PodGroup; then apply ``update``.

    ``transition`` marks a kill an action starts (always a new version); a
    repeated drain pass bumps the version only when it deletes something.
    """
    job = ctx.job
    soft = bool(retain) or job.retry_count >= job.max_retry - 1
    _fresh_counts(ctx)
    deleted = False
    for pod in sorted(ctx.pods.values(), key=lambda p: p.name):
        if soft and pod.deletion_time is None and pod.phase in RETAIN_SOFT:
            ctx.counts.count(pod)
            continue
        if ctx.delete_pod(pod):
            ctx.deleted += 1
            deleted = True
    deleted = ctx.delete_pod_group() or deleted
    delete_ssh_secret(ctx)  # a new version gets new keys (Volcano's ssh OnJobDelete)
    delete_svc_objects(ctx)  # Volcano's svc OnJobDelete: made again if the job restarts
    if transition or deleted:
        job.version += 1
    markers = {k: v for k, v in job.controlled_resources.items() if not k.startswith(PLUGIN_MARKER)}
    if markers != job.controlled_resources:
        job.controlled_resources = markers
    update(ctx)
    save_status(ctx)


def kill_target(ctx: JobContext, targets: Iterable[Pod], update: UpdateFn) -> None:
    """Delete only ``targets`` (no version bump, PodGroup kept); then apply ``update``."""
    _fresh_counts(ctx)
    for pod in list(targets):
        if pod.name in ctx.pods and ctx.delete_pod(pod):
            ctx.deleted += 1
    for pod in ctx.pods.values():
        if pod.name not in ctx.failed_deletes:  # counted terminating already
            ctx.counts.count(pod)
    update(ctx)
    save_status(ctx)


def save_status(ctx: JobContext) -> None:
    """Write the job's status fields if any differs from the stored row."""
    job, counts = ctx.job, ctx.counts
    for name in STATUS_FIELDS:
        setattr(job, name, getattr(counts, name))
    job.status_min_available = job.min_available
    job.task_status_count = {
        task: {"phase": dict(sorted(phases.items()))}
        for task, phases in sorted(counts.by_task.items())
        if phases
    }
    changed = [name for name, value in ctx.stored_status.items() if getattr(job, name) != value]
    if changed:
        job.save(update_fields=changed)
        ctx.stored_status = ctx.status_of(job)
        ctx.changed = True
