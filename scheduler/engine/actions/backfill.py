"""Backfill action: place BestEffort tasks (no resource request) wherever the predicates allow.

Volcano's counterpart: ``pkg/scheduler/actions/backfill``. Backfill does not test resource fit
itself (a BestEffort pod asks for nothing but its ``pods`` slot, which the predicates plugin's
pod-count check guards); it allocates directly in the session and binds the job's allocated tasks
as soon as the job is ready.
"""

from __future__ import annotations

from scheduler.engine.actions.allocate import schedulable_jobs
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import TaskStatus
from scheduler.engine.framework import Action, ArgSpec, Session, register_action
from scheduler.engine.util.node_select import NodeSelector
from scheduler.engine.util.priority_queue import PriorityQueue, sort_tasks

__all__ = ["BackfillAction"]


@register_action
class BackfillAction(Action):
    """Places pending BestEffort tasks of admitted jobs."""

    name = "backfill"
    arguments_schema = (ArgSpec("predicateErrorCacheEnable", bool, True),)

    def execute(self, ssn: Session) -> None:
        """Run backfill's steps on ``ssn``."""
        selector = NodeSelector.of(ssn)
        # 1. Pending BestEffort tasks in queue order, job order, task order.
        for task in self._candidates(ssn):
            job = ssn.jobs[task.job]
            # 2. Pre-filter, then the plugin predicates over every node.
            failure = ssn.pre_predicate_fn(task)
            nodes = [] if failure is not None else selector.predicate_nodes(task)
            if not nodes:
                job.fit_errors[task.uid] = (
                    failure.reason if failure is not None else selector.explain(task)
                )
                continue
            # 3. One node is taken as is; several are scored.
            node = nodes[0] if len(nodes) == 1 else selector.best_of(task, nodes)
            job.fit_errors.pop(task.uid, None)
            ssn.allocate_and_bind(task, node)

    @staticmethod
    def _candidates(ssn: Session) -> list[TaskInfo]:
        queues: PriorityQueue[QueueInfo] = PriorityQueue(
            ssn.queue_order_cmp, key=ssn.queue_order_key()
        )
        by_queue: dict[str, PriorityQueue[JobInfo]] = {}
        job_key = ssn.job_order_key()
        # Only jobs with a Pipelined task or a Pending BestEffort one have anything to do here:
        # the others are left out before asking JobValid (10,000 one-pod jobs: 10,000 calls).
        relevant = [
            job
            for job in ssn.jobs.values()
            if job.pending_best_effort or job.task_status_index.get(TaskStatus.PIPELINED)
        ]
        for job in schedulable_jobs(ssn, relevant):
            if job.task_status_index.get(TaskStatus.PIPELINED):
                for task in job.tasks_in(TaskStatus.PIPELINED):
                    if task.best_effort:
                        ssn.unplace_task(task)
            if not job.pending_best_effort:  # the job's count of Pending BestEffort tasks
                continue
            if not any(
                t.best_effort and not t.scheduling_gated
                for t in job.task_status_index.get(TaskStatus.PENDING, {}).values()
            ):
                continue
            if job.queue not in by_queue:
                by_queue[job.queue] = PriorityQueue(ssn.job_order_cmp, key=job_key)
                queues.push(ssn.queues[job.queue])
            by_queue[job.queue].push(job)
        ordered: list[TaskInfo] = []
        while not queues.empty():
            jobs = by_queue[queues.pop().name]
            while not jobs.empty():
                job = jobs.pop()
                pending = [
                    t
                    for t in job.task_status_index.get(TaskStatus.PENDING, {}).values()
                    if t.best_effort and not t.scheduling_gated
                ]
                ordered.extend(sort_tasks(ssn, pending))
        return ordered
