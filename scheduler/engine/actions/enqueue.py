"""Enqueue action: admit Pending PodGroups to Inqueue when the plugins let them in.

Volcano's counterpart: ``pkg/scheduler/actions/enqueue``. A job without ``minResources`` is always
admitted; one with them is admitted when the JobEnqueueable vote passes, and then the plugins are
told (JobEnqueued) so their "inqueue" accounting includes it for the next job.
"""

from __future__ import annotations

from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.types import PodGroupPhase
from scheduler.engine.framework import Action, Session, register_action
from scheduler.engine.util.priority_queue import PriorityQueue

__all__ = ["EnqueueAction"]


@register_action
class EnqueueAction(Action):
    """Moves admissible Pending PodGroups to Inqueue, queue by queue, job by job."""

    name = "enqueue"

    def execute(self, ssn: Session) -> None:
        """Run enqueue's steps on ``ssn``."""
        # 1. Bucket pending jobs by queue, in job order; queues in queue order.
        queues, pending = self._pending_by_queue(ssn)
        # 2. Serve the best queue's best job, then put the queue back to be re-ordered.
        # (JobEnqueued told through the session's cached list, as ``Session.job_enqueued`` does)
        enqueued_fns, enqueued = ssn.flat_fns("job_enqueued"), ssn.decisions.enqueued
        while queues:
            queue = queues.pop()
            jobs = pending.get(queue.name)
            if not jobs:
                continue
            job = jobs.pop()
            if job.min_resources is None or ssn.job_enqueueable(job):
                for fn in enqueued_fns:
                    fn(job)
                job.phase = PodGroupPhase.INQUEUE
                enqueued.append(job.uid)
            queues.push(queue)

    @staticmethod
    def _pending_by_queue(
        ssn: Session,
    ) -> tuple[PriorityQueue[QueueInfo], dict[str, PriorityQueue[JobInfo]]]:
        queues: PriorityQueue[QueueInfo] = PriorityQueue(
            ssn.queue_order_cmp, key=ssn.queue_order_key()
        )
        pending: dict[str, PriorityQueue[JobInfo]] = {}
        members: dict[str, list[JobInfo]] = {}  # queue -> its pending jobs, in uid order
        job_key = ssn.job_order_key()
        for job in ssn.jobs.values():
            queue = ssn.queues.get(job.queue)
            if queue is None or not job.is_pending():
                continue
            if queue.name not in pending:
                pending[queue.name] = PriorityQueue(ssn.job_order_cmp, key=job_key)
                members[queue.name] = []
                queues.push(queue)
            members[queue.name].append(job)
        for name, queued in members.items():  # one heapify per queue instead of a push per job
            pending[name].push_all(queued)
        return queues, pending
