"""Gang plugin: a job runs with at least minMember tasks or not at all.

Volcano's counterpart: ``pkg/scheduler/plugins/gang``. JobReady / JobPipelined hold a job's
statement back until minMember (and each role's minTaskMember) can be placed; victims never take a
job below its minimum; at session close every job that is not ready gets an ``Unschedulable``
condition whose message counts the missing tasks and says why they did not fit.

Jobs with a ``subGroupPolicy`` (``api/sub_job.py``) also need ``minSubGroups`` valid / ready /
pipelined sub-jobs per policy, and gang registers the sub-job hooks: SubJobReady and
SubJobPipelined (a sub-job's ``subGroupSize`` pods), SubJobOrder (sub-jobs not ready first).
"""

from __future__ import annotations

from collections import Counter

from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.sub_job import SubJobInfo, check_sub_jobs
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import (
    PERMIT,
    REJECT,
    PodGroupCondition,
    TaskStatus,
    ValidateResult,
)
from scheduler.engine.framework import Plugin, Session, register_plugin

__all__ = ["GangPlugin", "job_fit_error"]

NOT_READY = "pod group is not ready"
SCHEDULING_GATED = "SchedulingGated"  # Kubernetes' PodReasonSchedulingGated


def _valid(job: JobInfo) -> ValidateResult | None:
    if job.sub_group_policy and not check_sub_jobs(job, None):
        return ValidateResult(
            "NotEnoughPodsOfTask", "Not enough valid subGroups of each task for gang-scheduling"
        )
    if job.task_min_available and not job.check_task_valid():  # per-role checks: roles only
        return ValidateResult(
            "NotEnoughPodsOfTask", "Not enough valid pods of each task for gang-scheduling"
        )
    valid = job.valid_task_num()
    if valid < job.min_available:
        return ValidateResult(
            "NotEnoughPods",
            f"Not enough valid tasks for gang-scheduling, valid: {valid}, min: {job.min_available}",
        )
    return None


def _ready(job: JobInfo) -> bool:
    # is_ready() and, for jobs with per-role minimums only, check_task_ready(): asked several
    # times per job (order key, JobReady, close), so the common case is one comparison
    if job.task_min_available and not job.check_task_ready():
        return False
    if job.ready_num + job.pending_best_effort < job.min_available:
        return False
    return not job.sub_group_policy or check_sub_jobs(job, True)


def _pipelined(job: JobInfo) -> int:
    if job.sub_group_policy and not check_sub_jobs(job, False):
        return REJECT
    return PERMIT if job.check_task_pipelined() and job.is_pipelined() else REJECT


def _sub_job_order(left: SubJobInfo, right: SubJobInfo) -> int:
    """Return sub-jobs that are not ready yet first."""
    lr, rr = left.is_ready(), right.is_ready()
    if lr == rr:
        return 0
    return 1 if lr else -1


def _order(left: JobInfo, right: JobInfo) -> int:
    """Return jobs that are not ready yet first."""
    lr, rr = _ready(left), _ready(right)
    if lr == rr:
        return 0
    return 1 if lr else -1


def _histogram(reasons: Counter[str]) -> str:
    return ", ".join(sorted(f"{count} {reason}" for reason, count in reasons.items()))


def job_fit_error(job: JobInfo) -> str:
    """Return Volcano's summary of why ``job`` is not ready (task statuses, then pending reasons)."""
    statuses: Counter[str] = Counter()
    for status, tasks in job.task_status_index.items():
        if tasks:
            statuses[str(status)] += len(tasks)
    statuses["minAvailable"] = job.min_available
    message = f"{NOT_READY}, {_histogram(statuses)}"
    pending: Counter[str] = Counter()
    for uid, task in job.task_status_index.get(TaskStatus.PENDING, {}).items():
        # A gated pod is named for what holds it (Kubernetes' reason), not "Schedulable".
        if task.scheduling_gated:
            pending[SCHEDULING_GATED] += 1
        else:
            pending["Unschedulable" if uid in job.fit_errors else "Schedulable"] += 1
    if pending:
        message += f"; Pending: {_histogram(pending)}"
    details = sorted(set(job.fit_errors.values()))
    if details:
        message += f"; {details[0]}"
    return message


@register_plugin
class GangPlugin(Plugin):
    """All-or-nothing placement by minMember, and the Unschedulable condition."""

    name = "gang"

    def on_session_open(self, ssn: Session) -> None:
        """Register validity, victims, order, readiness, pipelining and starving."""
        self._ssn = ssn
        ssn.add_job_valid_fn(self.name, _valid)
        ssn.add_preemptable_fn(self.name, self._victims)
        ssn.add_reclaimable_fn(self.name, self._victims)
        # gangpreempt/gangreclaim keep minMember through their safe/whole bundles: permit all.
        ssn.add_unified_evictable_fn(self.name, lambda _ctx, candidates: (candidates, PERMIT))
        ssn.add_job_order_fn(self.name, _order, key=_ready)
        ssn.add_job_ready_fn(self.name, _ready)
        ssn.add_job_pipelined_fn(self.name, _pipelined)
        ssn.add_job_starving_fn(self.name, lambda job: job.is_starving())
        ssn.add_sub_job_ready_fn(self.name, SubJobInfo.is_ready)
        ssn.add_sub_job_pipelined_fn(
            self.name, lambda sub: PERMIT if sub.is_pipelined() else REJECT
        )
        ssn.add_sub_job_order_fn(self.name, _sub_job_order)

    def _victims(self, preemptor: TaskInfo, candidates: list[TaskInfo]) -> list[TaskInfo]:
        """Return candidates whose job keeps at least minAvailable ready tasks without them."""
        left: dict[str, int] = {}
        victims = []
        for task in candidates:
            job = self._ssn.jobs.get(task.job)
            if job is None:
                continue
            remaining = left.setdefault(job.uid, job.ready_task_num())
            if remaining > job.min_available:
                victims.append(task)
                left[job.uid] = remaining - 1
        return victims

    def on_session_close(self, ssn: Session) -> None:
        """Stamp Unschedulable on jobs that are not ready, Scheduled on those that are."""
        for job in ssn.jobs.values():
            if not job.tasks or (
                job.conditions
                and any(
                    c.type == "Unschedulable" and c.transition_id == ssn.uid for c in job.conditions
                )
            ):
                continue  # no tasks, or already refused this session (JobValid)
            if _ready(job):
                job.conditions.append(
                    PodGroupCondition(
                        "Scheduled",
                        "True",
                        "tasks in gang are ready to be scheduled",
                        transition_id=ssn.uid,
                    )
                )
                continue
            if job.releasing_keeps_gang():
                continue
            placed = job.ready_task_num() + job.waiting_task_num()
            missing = max(job.min_available - placed, 0)
            message = (
                f"{missing}/{len(job.tasks)} tasks in gang unschedulable: {job_fit_error(job)}"
            )
            job.job_fit_error = message
            job.conditions.append(
                PodGroupCondition("Unschedulable", "True", "NotEnoughResources", message, ssn.uid)
            )
