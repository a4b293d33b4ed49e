"""At session close: every job's PodGroup phase, conditions and the unschedulable reasons.

Volcano's counterpart: ``pkg/scheduler/framework/job_updater.go`` and the phase rules of
``session.go`` (``jobStatus``). Tasks bound in this session are Binding, which does not count as
scheduled, so a PodGroup whose pods were just bound stays Inqueue for this session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.types import PodGroupPhase, TaskStatus

if TYPE_CHECKING:
    from scheduler.engine.framework.session import Session

__all__ = ["job_phase", "update_jobs"]

_SCHEDULED = (TaskStatus.RUNNING, TaskStatus.BOUND, TaskStatus.FAILED, TaskStatus.SUCCEEDED)


def job_phase(job: JobInfo, session_uid: str) -> PodGroupPhase:
    """Return the PodGroup phase Volcano computes for ``job`` at the end of a session."""
    if job.conditions and job.count(TaskStatus.RUNNING):
        unschedulable_now = any(
            c.type == "Unschedulable" and c.status == "True" and c.transition_id == session_uid
            for c in job.conditions
        )
        if unschedulable_now:
            return PodGroupPhase.UNKNOWN
    scheduled = job.count(*_SCHEDULED)
    releasing = job.task_status_index.get(TaskStatus.RELEASING)
    if releasing:
        scheduled += sum(1 for t in releasing.values() if t.node_name)
    if scheduled >= job.min_available:
        finished = job.count(TaskStatus.SUCCEEDED, TaskStatus.FAILED)
        return PodGroupPhase.COMPLETED if finished == scheduled else PodGroupPhase.RUNNING
    if job.phase != PodGroupPhase.INQUEUE:
        return PodGroupPhase.PENDING
    return PodGroupPhase.INQUEUE


def update_jobs(ssn: Session) -> None:
    """Write phases, conditions, pipelined pods and fit errors of every job into the decisions."""
    decisions = ssn.decisions
    for uid in sorted(ssn.jobs):
        job = ssn.jobs[uid]
        job.phase = job_phase(job, ssn.uid)
        decisions.pod_group_phases[uid] = job.phase
        stamped = [c for c in job.conditions if c.transition_id == ssn.uid]
        if stamped:
            decisions.pod_group_conditions[uid] = stamped
            for cond in stamped:
                if cond.type == "Unschedulable" and cond.status == "True":
                    decisions.unschedulable[uid] = cond.message
        if job.task_status_index.get(TaskStatus.PIPELINED):
            for task in sorted(job.tasks_in(TaskStatus.PIPELINED), key=lambda t: t.uid):
                decisions.pipelined[task.uid] = task.node_name
        if job.fit_errors:
            for task_uid, reason in sorted(job.fit_errors.items()):
                decisions.task_fit_errors[task_uid] = reason
