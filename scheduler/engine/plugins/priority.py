"""Priority plugin: order jobs and tasks by priority; lower priority is preemptable.

Volcano's counterpart: ``pkg/scheduler/plugins/priority``. Job priority comes from the PodGroup's
PriorityClass, task priority from the pod (``spec.priority``, the task-priority annotation).
"""

from __future__ import annotations

from scheduler.engine.api.eviction import EvictionKind, GangEvictionContext
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import PERMIT, TaskStatus
from scheduler.engine.framework import Plugin, Session, register_plugin

__all__ = ["PriorityPlugin"]


def _higher_first(left: int, right: int) -> int:
    return -1 if left > right else (1 if left < right else 0)


@register_plugin
class PriorityPlugin(Plugin):
    """Higher PriorityClass jobs and higher-priority tasks go first."""

    name = "priority"

    def on_session_open(self, ssn: Session) -> None:
        """Register task and job order, preemptable and job starving."""
        self._ssn = ssn
        ssn.add_task_order_fn(self.name, _task_order, key=_task_order_key)
        ssn.add_job_order_fn(self.name, _job_order, key=_job_order_key)
        ssn.add_preemptable_fn(self.name, self._preemptable)
        ssn.add_unified_evictable_fn(self.name, self._gang_evictable)
        ssn.add_job_starving_fn(self.name, _starving)

    def _preemptable(self, preemptor: TaskInfo, candidates: list[TaskInfo]) -> list[TaskInfo]:
        """Return candidates of lower job priority (other jobs) or lower task priority (same job)."""
        jobs = self._ssn.jobs
        preemptor_job = jobs[preemptor.job]
        victims = []
        for task in candidates:
            job = jobs.get(task.job)
            if job is None:
                continue
            if job.uid != preemptor_job.uid:
                if job.priority < preemptor_job.priority:
                    victims.append(task)
            elif task.priority < preemptor.priority:
                victims.append(task)
        return victims

    def _gang_evictable(
        self, ctx: GangEvictionContext, candidates: list[TaskInfo]
    ) -> tuple[list[TaskInfo], int]:
        """gangpreempt: only pods of jobs of lower priority than the starving job; gangreclaim:
        all (reclaim is about fairness between queues, not priority)."""
        if ctx.kind is EvictionKind.GANG_RECLAIM:
            return candidates, PERMIT
        jobs = self._ssn.jobs
        return [
            t for t in candidates if t.job in jobs and jobs[t.job].priority < ctx.job.priority
        ], PERMIT


def _task_order(left: TaskInfo, right: TaskInfo) -> int:
    """Return the higher task priority first."""
    return _higher_first(left.priority, right.priority)


def _task_order_key(task: TaskInfo) -> int:
    """Return the sort key equal to ``_task_order``."""
    return -task.priority


def _job_order(left: JobInfo, right: JobInfo) -> int:
    """Return the higher job priority first."""
    return _higher_first(left.priority, right.priority)


def _job_order_key(job: JobInfo) -> int:
    """Return ``_job_order`` as a key: higher priority first."""
    return -job.priority


def _starving(job: JobInfo) -> bool:
    """Return True while some task of the job is neither ready nor pipelined."""
    placed = job.ready_task_num() + job.count(TaskStatus.PIPELINED)
    return placed < len(job.tasks)
