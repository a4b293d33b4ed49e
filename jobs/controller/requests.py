"""What a reconcile pass reacts to: Volcano's controller events, derived from the rows.

Volcano's informers turn each change into an event (``PodFailed``,
``PodEvicted``, ``TaskCompleted``...). Our controller is level-triggered: it
reads the rows every pass and derives the same events from what it sees. An
event repeats while its condition holds, which is harmless by construction:
every action that reacts to a pod either removes the pod, or moves the job to
a phase that ignores pod events, or bumps ``status.version`` so the pod's event
is stale (Volcano's own guard against late events); an unmatched event resolves
to SyncJob, which is what the pass does anyway.

Commands are the exception: they are consumed at most once. As Volcano does, the
controller deletes a Command before it acts on it and records ``CommandIssued``
on the job first: a pass that fails after the delete rolls the delete back with
it, and nothing ever runs a Command whose row is gone, so none runs twice.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass

from core.events import record_event
from core.models import Pod, PodPhase
from jobs.controller.context import JobContext
from jobs.models import Command, Job, PodEviction, TargetKind
from queues.models import PodGroupPhase

__all__ = ["DEFAULT_TASK_MAX_RETRY", "Request", "observe_pods", "take_commands", "take_evictions"]

# A task's maxRetry when unset or 0 (Volcano's jobCache.TaskFailed: "compatible with existing
# job"); its admission fills the same default in.
DEFAULT_TASK_MAX_RETRY = 3

# Events that never match a policy (Volcano's internal ones).
INTERNAL_EVENTS = frozenset({"OutOfSync", "CommandIssued", "PodRunning"})


@dataclass(frozen=True)
class Request:
    """One thing to react to: an event (and an explicit action, for commands)."""

    event: str
    action: str = ""
    task: str = ""
    pod: str = ""
    pod_uid: uuid.UUID | None = None
    exit_code: int | None = None
    version: int | None = None  # the job version of the pod that raised it
    since: dt.datetime | None = None  # when the condition began (for policy timeouts)
    source: str = ""  # "command <name>" or "pod <name>", for events and logs
    timer: int | None = None  # the DelayedAction this request fires, if any


@dataclass(frozen=True)
class _PodRef:
    task: str
    pod: str
    version: int
    uid: uuid.UUID | None = None


def take_commands(job: Job, now: dt.datetime) -> list[Request]:
    """Delete the job's Commands and return a request for each (at most once, in order).

    A Command already gone when deleted was taken by someone else and is skipped (Volcano's
    NotFound on delete); one meant for an earlier job of the same name is deleted unheeded.
    """
    commands = list(
        Command.objects.select_for_update()
        .filter(
            target_kind=TargetKind.JOB,
            namespace=job.namespace,
            target_name=job.name,
            processed=False,
        )
        .order_by("created_at", "pk")
    )
    requests = []
    for command in commands:
        deleted, _ = Command.objects.filter(pk=command.pk).delete()
        if not deleted:
            continue  # taken by another pass
        if command.target_uid is not None and command.target_uid != job.uid:
            continue  # meant for an earlier job of the same name
        record_event(
            job,
            kind="Job",
            reason="CommandIssued",
            message=(
                f"Start to execute command {command.action} ({command.name}), and clean it up "
                "to make sure executed not more than once."
            ),
            now=now,
        )
        requests.append(
            Request(event="CommandIssued", action=command.action, source=f"command {command.name}")
        )
    return requests


def take_evictions(job: Job) -> list[Request]:
    """Delete the job's ``PodEviction`` rows and return a ``PodEvicted`` request for each.

    Pods deleted by anyone but the controller (``jobs.evictions``) leave no row to observe;
    these records stand in for the informer's delete notification. Taken in the pass's
    transaction, so a failed pass leaves them for the next one.
    """
    evictions = list(PodEviction.objects.select_for_update().filter(job=job).order_by("pk"))
    if evictions:
        PodEviction.objects.filter(pk__in=[e.pk for e in evictions]).delete()
    return [
        Request(
            "PodEvicted",
            since=eviction.deleted_at,
            source=f"pod {eviction.pod_name} deleted",
            task=eviction.task_name,
            pod=eviction.pod_name,
            version=eviction.version,
        )
        for eviction in evictions
    ]


def observe_pods(ctx: JobContext) -> list[Request]:
    """Return the pod and PodGroup events the current rows imply, in a stable order."""
    requests: list[Request] = []
    completed_tasks: set[str] = set()
    for pod in sorted(ctx.pods.values(), key=lambda p: p.name):
        base = _PodRef(pod.task_name, pod.name, ctx.pod_version(pod), pod.uid)
        if pod.deletion_time is not None:
            requests.append(
                Request(
                    "PodEvicted",
                    since=pod.deletion_time,
                    source=f"pod {pod.name}",
                    task=base.task,
                    pod=base.pod,
                    pod_uid=base.uid,
                    version=base.version,
                )
            )
        elif pod.phase == PodPhase.FAILED:
            requests.append(
                Request(
                    "PodFailed",
                    exit_code=pod.exit_code,
                    since=pod.finish_time or pod.created_at,
                    source=f"pod {pod.name}",
                    task=base.task,
                    pod=base.pod,
                    pod_uid=base.uid,
                    version=base.version,
                )
            )
        elif pod.phase == PodPhase.PENDING:
            requests.append(
                Request(
                    "PodPending",
                    since=pod.created_at,
                    source=f"pod {pod.name}",
                    task=base.task,
                    pod=base.pod,
                    pod_uid=base.uid,
                    version=base.version,
                )
            )
        elif (
            pod.phase == PodPhase.SUCCEEDED
            and pod.task_name not in completed_tasks
            and _task_completed(ctx, pod.task_name)
        ):
            completed_tasks.add(pod.task_name)
            finished = [p.finish_time for p in _task_pods(ctx, pod.task_name) if p.finish_time]
            requests.append(
                Request(
                    "TaskCompleted",
                    since=max(finished, default=pod.created_at),
                    source=f"task {pod.task_name}",
                    task=base.task,
                    pod=base.pod,
                    pod_uid=base.uid,
                    version=base.version,
                )
            )
    requests += _failed_tasks(ctx)
    group = ctx.pod_group
    if group is not None and group.phase == PodGroupPhase.UNKNOWN:
        # Volcano's PodGroup requests carry no job version, so its JobUnknown policies stop
        # firing after the first full kill (a quirk); ours are never stale.
        requests.append(
            Request("Unknown", since=_condition_time(group.conditions), source="podgroup")
        )
    return requests


def _failed_tasks(ctx: JobContext) -> list[Request]:
    """Return a ``TaskFailed`` request for each task whose live pods restarted maxRetry times.

    Volcano's ``jobCache.TaskFailed``, asked on every update of a Pending or Running pod: the
    ``restartCount`` of the containers of the task's Pending and Running pods, summed, against
    the task's ``maxRetry`` (``spec.tasks[].maxRetry``, not the job's; 0 means 3). The request
    names the pod that restarted most, whose job version decides whether it is stale.
    """
    requests: list[Request] = []
    for task in ctx.tasks:
        limit = task.max_retry or DEFAULT_TASK_MAX_RETRY
        live = [
            pod
            for pod in _task_pods(ctx, task.name)
            if pod.phase in (PodPhase.PENDING, PodPhase.RUNNING)
        ]
        retried = sum(pod.restart_count for pod in live)
        if not live or task.replicas == 0 or retried < limit:
            continue
        pod = max(live, key=lambda p: (p.restart_count, p.name))
        requests.append(
            Request(
                "TaskFailed",
                since=ctx.now,
                source=f"task {task.name} restarted {retried} times, maxRetry {limit}",
                task=task.name,
                pod=pod.name,
                pod_uid=pod.uid,
                version=ctx.pod_version(pod),
            )
        )
    return requests


def _task_pods(ctx: JobContext, task: str) -> list[Pod]:
    return [pod for pod in ctx.pods.values() if pod.task_name == task]


def _task_completed(ctx: JobContext, task_name: str) -> bool:
    """Return whether every replica of the task exists and Succeeded (Volcano's TaskCompleted)."""
    task = ctx.task(task_name)
    pods = _task_pods(ctx, task_name)
    if task is None or len(pods) < task.replicas:
        return False
    return all(pod.phase == PodPhase.SUCCEEDED and pod.deletion_time is None for pod in pods)


def _condition_time(conditions: list[dict[str, str]]) -> dt.datetime | None:
    times = []
    for condition in conditions:
        try:
            times.append(dt.datetime.fromisoformat(condition.get("lastTransitionTime", "")))
        except ValueError:
            continue
    return max(times, default=None)
