"""Delayed actions: a matched policy with a ``timeout`` arms a timer instead of acting now.

Volcano's counterpart: ``AddDelayActionForJob``, ``CleanPodDelayActionsIfNeed`` and
``cleanupDelayActions`` in ``pkg/controllers/job/job_controller.go``. What a user sees is the
same: the job records ``ExecuteAction`` "Execute action <action> after <delay>" when the timer
is armed, and the action runs against the job's phase of that moment when it fires. The
timers are ``DelayedAction`` rows, not goroutines, so a worker restart keeps them and the row
is marked fired in the pass (one transaction, the job row locked) that executes it: at most
once, and at least once as long as a worker runs.

Cancellation, as Volcano does it:

- a timer armed by ``PodPending`` goes when that pod (same uid) is no longer Pending;
- a timer armed by ``PodFailed`` or ``PodEvicted`` goes when a pod of that name is Running
  (Volcano's ``PodRunning`` event);
- after an action that is not internal executes, the armed timers of the same scope go
  (a job action cancels the job-level ones, RestartTask those of its task, RestartPod those
  of its pod).

The timer starts when the event happened (``Request.since``: the pod's creation, failure or
deletion), which is when Volcano's informer would have delivered it, and runs on the cluster's
clock (``kube.clock``): at ``VOLCANO_SIM_SPEED=10`` a 5 m timeout fires after 30 s of wall time.
"""

from __future__ import annotations

from apis.durations import format_duration
from core.events import record_event
from core.models import PodPhase
from jobs.controller.context import JobContext
from jobs.controller.requests import Request
from jobs.models import DelayedAction
from kube import clock

__all__ = ["arm", "cancel_recovered", "cancel_same_scope", "fire", "take_due"]

INTERNAL_ACTIONS = frozenset({"SyncJob", "EnqueueJob", "SyncQueue", "OpenQueue", "CloseQueue"})
_TASK_ACTIONS = frozenset({"RestartTask", "RestartPartition"})


def arm(ctx: JobContext, request: Request, action: str, delay: float) -> None:
    """Arm ``action`` to run ``delay`` seconds after ``request``'s event, unless already armed.

    An armed timer with the same action for the pod stays as it is (Volcano's rule); a fired
    one stays too while it was fired for this very pod and event, so one condition fires once.
    """
    existing = DelayedAction.objects.filter(job=ctx.job, pod_name=request.pod).first()
    if existing is not None and existing.action == action:
        if existing.fired_at is None:
            return
        if existing.event == request.event and existing.pod_uid == request.pod_uid:
            return
    if existing is not None:
        existing.delete()
    start = request.since or ctx.now
    DelayedAction.objects.create(
        job=ctx.job,
        task_name=request.task,
        pod_name=request.pod,
        pod_uid=request.pod_uid,
        event=request.event,
        action=action,
        version=request.version or 0,
        armed_at=ctx.now,
        due=start + clock.real(delay),  # the cluster's clock: VOLCANO_SIM_SPEED
    )
    record_event(
        ctx.job,
        kind="Job",
        reason="ExecuteAction",
        message=f"Execute action {action} after {format_duration(delay)}",
        now=ctx.now,
    )
    ctx.changed = True


def cancel_recovered(ctx: JobContext, requests: list[Request]) -> None:
    """Drop the timers whose pod recovered, and fired ones whose condition has ended."""
    current = {(r.event, r.pod, r.pod_uid) for r in requests}
    for timer in DelayedAction.objects.filter(job=ctx.job):
        pod = ctx.pods.get(timer.pod_name)
        if timer.fired_at is not None:
            ended = (timer.event, timer.pod_name, timer.pod_uid) not in current
        elif timer.event == "PodPending":
            ended = (
                pod is None
                or pod.uid != timer.pod_uid
                or pod.phase != PodPhase.PENDING
                or pod.deletion_time is not None
            )
        elif timer.event in ("PodFailed", "PodEvicted"):
            ended = pod is not None and pod.phase == PodPhase.RUNNING
        else:
            ended = False
        if ended:
            timer.delete()
            ctx.changed = True


def take_due(ctx: JobContext) -> list[Request]:
    """Return a request for each of the job's timers due by now (``fire`` claims each)."""
    due = DelayedAction.objects.filter(job=ctx.job, fired_at__isnull=True, due__lte=ctx.now)
    return [
        Request(
            event=timer.event,
            action=timer.action,
            task=timer.task_name,
            pod=timer.pod_name,
            pod_uid=timer.pod_uid,
            version=timer.version,
            source=f"{timer.event} of {timer.pod_name or 'the job'} after its timeout",
            timer=timer.pk,
        )
        for timer in due
    ]


def fire(ctx: JobContext, request: Request) -> bool:
    """Mark ``request``'s timer fired; False when it is gone (cancelled) or fired already."""
    if request.timer is None:
        return False
    claimed = DelayedAction.objects.filter(pk=request.timer, fired_at__isnull=True).update(
        fired_at=ctx.now
    )
    ctx.changed = ctx.changed or bool(claimed)
    return bool(claimed)


def _scope(action: str) -> str:
    if action in _TASK_ACTIONS:
        return "task"
    return "pod" if action == "RestartPod" else "job"


def cancel_same_scope(ctx: JobContext, action: str, request: Request) -> None:
    """Cancel the armed timers of ``action``'s scope after it executed (Volcano's cleanup)."""
    if action in INTERNAL_ACTIONS:
        return
    scope = _scope(action)
    for timer in DelayedAction.objects.filter(job=ctx.job, fired_at__isnull=True):
        if _scope(timer.action) != scope:
            continue
        if scope == "task" and timer.task_name != request.task:
            continue
        if scope == "pod" and timer.pod_name != request.pod:
            continue
        timer.delete()
        ctx.changed = True
