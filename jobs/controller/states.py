"""The job phase machine: what each action does in each phase (Volcano's ``state/*.go``).

``execute(ctx, action, request)`` follows the transition table of
volcano-job-lifecycle.md §5; the rules that decide a phase from the pod counts
(§7) are the ``*_rule`` functions. Quirks, decided:

- Kept: ResumeJob counts as a retry (after maxRetry abort/resume cycles the job
  fails); only the first container's exit code matters (our pods have one);
  JobUpdated is never emitted.
- Fixed: an AbortJob, TerminateJob or CompleteJob *Command* sent while the job
  is Restarting is carried out (Volcano lets the restart swallow it); the same
  actions from policies still behave as Volcano's.
"""

from __future__ import annotations

from core.models import Pod, PodPhase
from jobs.controller.actions import (
    RETAIN_NONE,
    RETAIN_SOFT,
    UpdateFn,
    kill_job,
    kill_target,
    sync_job,
)
from jobs.controller.context import JobContext
from jobs.controller.requests import Request
from jobs.controller.sub_groups import PARTITION_ID, partition_id
from jobs.models import JobPhase

__all__ = ["execute"]

RESTARTS = frozenset({"RestartTask", "RestartPod", "RestartPartition"})
USER_STOPS = {
    "AbortJob": JobPhase.ABORTING,
    "TerminateJob": JobPhase.TERMINATING,
    "CompleteJob": JobPhase.COMPLETING,
}
DRAINED = {
    JobPhase.ABORTING: JobPhase.ABORTED,
    JobPhase.COMPLETING: JobPhase.COMPLETED,
    JobPhase.TERMINATING: JobPhase.TERMINATED,
}


# -- phase rules (§7) --------------------------------------------------------------------
def pending_rule(ctx: JobContext) -> None:
    """Pending → Running once running + succeeded + failed ≥ minAvailable."""
    c = ctx.counts
    if c.running + c.succeeded + c.failed >= ctx.job.min_available:
        ctx.set_phase(JobPhase.RUNNING)


def running_rule(ctx: JobContext) -> None:
    """Running → Completed / Failed / Pending by the counts (§7.2)."""
    job, c, replicas = ctx.job, ctx.counts, ctx.replicas
    if replicas == 0:
        return
    if job.min_success is not None and c.succeeded >= job.min_success:
        ctx.set_phase(JobPhase.COMPLETED, "MinSuccess", f"{c.succeeded} pods succeeded")
        return
    if c.succeeded + c.failed == replicas:
        ctx.set_phase(*_finished_phase(ctx))
        return
    if c.pending > replicas - job.min_available:
        ctx.set_phase(JobPhase.PENDING, "GangUnsatisfied", f"{c.pending} pods pending")


def _finished_phase(ctx: JobContext) -> tuple[JobPhase, str, str]:
    job, c = ctx.job, ctx.counts
    task_minimum = sum(
        t.replicas if t.min_available is None else t.min_available for t in ctx.tasks
    )
    if job.min_available >= task_minimum:
        for task in ctx.tasks:
            if task.min_available is None:
                continue
            phases = c.by_task.get(task.name)
            succeeded = phases[PodPhase.SUCCEEDED] if phases else 0
            if succeeded < task.min_available:
                return (
                    JobPhase.FAILED,
                    "TaskMinAvailable",
                    f"task {task.name}: {succeeded} succeeded",
                )
    elif job.min_success is not None and c.succeeded < job.min_success:
        return JobPhase.FAILED, "MinSuccess", f"{c.succeeded} of {job.min_success} succeeded"
    if c.succeeded >= job.min_available:
        return JobPhase.COMPLETED, "Completed", f"{c.succeeded} pods succeeded"
    return JobPhase.FAILED, "Failed", f"{c.succeeded} succeeded, {c.failed} failed"


def restart_rule(ctx: JobContext) -> None:
    """Restarting → Failed when retries are used up, else → Pending once torn down (§7.3)."""
    job = ctx.job
    if job.retry_count >= job.max_retry:
        ctx.set_phase(JobPhase.FAILED, "MaxRetry", f"retried {job.retry_count} times")
    elif ctx.replicas - ctx.counts.terminating >= job.status_min_available:
        ctx.set_phase(JobPhase.PENDING, "Restarted")


def _stale_pods(ctx: JobContext) -> list[Pod]:
    """Return the pods a restart's kill left behind: an earlier version's, whose delete failed.

    An earlier version's finished pods are not among them: a soft kill keeps those on purpose.
    """
    version = ctx.job.version
    finished = (PodPhase.SUCCEEDED, PodPhase.FAILED)
    return [
        pod
        for pod in ctx.pods.values()
        if ctx.pod_version(pod) < version and pod.phase not in finished
    ]


def _to(phase: JobPhase, *, retry: bool = False, reason: str = "") -> UpdateFn:
    def update(ctx: JobContext) -> None:
        if retry:
            ctx.job.retry_count += 1
        ctx.set_phase(phase, reason)

    return update


def _drain(ctx: JobContext) -> None:
    c = ctx.counts
    target = DRAINED.get(JobPhase(ctx.job.phase))
    if target is not None and c.pending == c.running == c.terminating == 0:
        ctx.set_phase(target)


def _unchanged(ctx: JobContext) -> None:
    return None


# -- the table (§5) ----------------------------------------------------------------------
def _targets(ctx: JobContext, action: str, request: Request) -> list[Pod]:
    if action == "RestartPod":
        return [pod for pod in ctx.pods.values() if pod.name == request.pod]
    task_pods = [pod for pod in ctx.pods.values() if pod.task_name == request.task]
    if action == "RestartPartition":
        # The pods of the task sharing the partition of the pod that raised it; none when
        # the task has no partitionPolicy (Volcano then does nothing).
        partition = _partition_of(ctx, request)
        return [p for p in task_pods if partition and p.labels.get(PARTITION_ID) == partition]
    return task_pods


def _partition_of(ctx: JobContext, request: Request) -> str | None:
    """Return the partition of the request's pod: its label, else its index's (pod gone)."""
    pod = ctx.pods.get(request.pod)
    if pod is not None:
        return pod.labels.get(PARTITION_ID)
    task = ctx.task(request.task)
    index = request.pod.rpartition("-")[2]
    return partition_id(task, int(index)) if task is not None and index.isdigit() else None


def execute(ctx: JobContext, action: str, request: Request) -> None:
    """Carry out ``action`` for ``request`` in the job's current phase."""
    phase = ctx.job.phase or JobPhase.PENDING
    reason = f"{action} ({request.source or request.event})"
    if phase in (JobPhase.PENDING, JobPhase.RUNNING):
        if action == "RestartJob":
            kill_job(
                ctx,
                RETAIN_NONE,
                _to(JobPhase.RESTARTING, retry=True, reason=reason),
                transition=True,
            )
        elif action in RESTARTS:
            targets = _targets(ctx, action, request)
            if action == "RestartPartition" and not targets:
                return  # Volcano: no such partition group, nothing to manage
            kill_target(ctx, targets, _to(JobPhase.RESTARTING, retry=True, reason=reason))
        elif action in USER_STOPS:
            kill_job(ctx, RETAIN_SOFT, _to(USER_STOPS[action], reason=reason), transition=True)
        else:
            sync_job(ctx, pending_rule if phase == JobPhase.PENDING else running_rule)
    elif phase == JobPhase.RESTARTING:
        if action in USER_STOPS and request.source.startswith("command"):
            kill_job(ctx, RETAIN_SOFT, _to(USER_STOPS[action], reason=reason), transition=True)
        elif action in RESTARTS:
            targets = _targets(ctx, action, request)
            if action != "RestartPartition" or targets:
                kill_target(ctx, targets, restart_rule)
        elif action in ("SyncJob", "EnqueueJob") and not (stale := _stale_pods(ctx)):
            sync_job(ctx, restart_rule)
        elif action in ("SyncJob", "EnqueueJob"):
            kill_target(ctx, stale, restart_rule)  # deletes that failed: tried again
        else:
            kill_job(ctx, RETAIN_NONE, restart_rule, transition=False)
    elif phase in (JobPhase.ABORTING, JobPhase.ABORTED) and action == "ResumeJob":
        kill_job(
            ctx, RETAIN_SOFT, _to(JobPhase.RESTARTING, retry=True, reason=reason), transition=True
        )
    elif phase in DRAINED:
        kill_job(ctx, RETAIN_SOFT, _drain, transition=False)
    else:  # Aborted, Completed, Failed, Terminated: tear leftovers down, phase unchanged
        kill_job(ctx, RETAIN_SOFT, _unchanged, transition=False)
