"""DRF plugin: dominant resource fairness between jobs, and between queues in hierarchical mode.

Volcano's counterpart: ``pkg/scheduler/plugins/drf``. A job's share is its dominant share: the
largest fraction of any cluster resource its allocated tasks hold. Jobs with the smaller share
go first, and a preemptor may evict a task only if, after the move, the preemptor's job would not
hold a bigger share than the victim's. With ``enableHierarchy: true`` the queues form a weighted
tree (``volcano.sh/hierarchy`` / ``volcano.sh/hierarchy-weights`` annotations, see
``drf_hierarchy.py``) that orders queues and decides what may be reclaimed.
"""

from __future__ import annotations

import numpy as np

from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.framework import Event, EventHandler, Plugin, Session, register_plugin
from scheduler.engine.plugins.drf_hierarchy import HierarchyTree
from scheduler.engine.util import quota
from scheduler.engine.util.quota import FloatRow, IntRow

__all__ = ["SHARE_DELTA", "DrfPlugin", "JobAttr"]

SHARE_DELTA = 1e-6


class JobAttr:
    """A job's allocated amount and dominant share.

    A placement only adds to ``allocated`` and marks the share stale: the share is read when
    jobs are ordered (once per round), not after each of a round's pods, so it is computed
    then, from the same amounts with the same operations.
    """

    __slots__ = ("_inverse", "_share", "allocated", "stale")

    def __init__(self, allocated: IntRow, share: float, inverse: list[float]) -> None:
        self.allocated = allocated
        self._share = share
        self._inverse = inverse  # 1 / the cluster's total per column (0: not in the cluster)
        self.stale = False

    @property
    def share(self) -> float:
        """Return the dominant share (max of allocated / total over the cluster's columns)."""
        if self.stale:
            self.stale = False
            # NumPy's product converts each int64 amount to float64, as ``int * float`` does
            products = zip(self.allocated.tolist(), self._inverse, strict=True)
            self._share = max([a * b for a, b in products]) if self._inverse else 0.0
        return self._share


@register_plugin
class DrfPlugin(Plugin):
    """Smaller dominant share first; victims only from jobs that would keep a larger share."""

    name = "drf"

    def on_session_open(self, ssn: Session) -> None:
        """Compute every job's share and register order, victims and event handlers."""
        self._ssn = ssn
        # 1. The cluster total; only columns the cluster has count towards a share.
        self.total: IntRow = ssn.arrays.allocatable.sum(axis=0)
        present = self.total > 0
        self._inverse: FloatRow = np.where(present, 1.0 / np.where(present, self.total, 1), 0.0)
        self._inverse_values: list[float] = self._inverse.tolist()
        # 2. Per-job allocation: one row of a matrix this plugin owns per job, every share at
        # once (the same products and max per row as ``share_of``).
        amounts = quota.job_amounts(ssn)
        allocated = amounts.allocated.copy()
        shares = (
            np.maximum.reduce(allocated * self._inverse, axis=1).tolist()
            if allocated.shape[1]
            else [0.0] * len(allocated)
        )
        self.jobs: dict[str, JobAttr] = {
            uid: JobAttr(allocated[row], shares[row], self._inverse_values)
            for uid, row in amounts.position.items()
        }
        # 3. The queue tree, when asked for.
        option = next((o for o in ssn.conf.plugin_options() if o.name == self.name), None)
        self.tree: HierarchyTree | None = None
        if option is not None and option.enabled("enableHierarchy"):
            self.tree = HierarchyTree.build(ssn, self.total, self.share_of, self.jobs_allocated())
            ssn.add_queue_order_fn(self.name, self.tree.compare_queues)
            ssn.add_reclaimable_fn(self.name, self._reclaimable)
        ssn.add_job_order_fn(self.name, self._job_order, key=self._job_order_key)
        ssn.add_preemptable_fn(self.name, self._preemptable)
        ssn.add_event_handler(EventHandler(self._on_allocate, self._on_deallocate))

    def jobs_allocated(self) -> dict[str, IntRow]:
        """Return every job's allocated row (shared, not copied)."""
        return {uid: attr.allocated for uid, attr in self.jobs.items()}

    def share_of(self, allocated: IntRow | FloatRow) -> float:
        """Return the dominant share of ``allocated`` in this cluster."""
        # maximum.reduce: the same max without ndarray.max's Python wrapper (once per placed pod)
        return float(np.maximum.reduce(allocated * self._inverse)) if len(allocated) else 0.0

    # --- events --------------------------------------------------------------------------------
    def _change(self, task: TaskInfo, sign: int) -> None:
        attr = self.jobs.get(task.job)
        if attr is None or task.resreq_vec is None:
            return
        if sign > 0:
            attr.allocated += task.resreq_vec
        else:
            attr.allocated -= task.resreq_vec
        attr.stale = True
        if self.tree is not None:
            self.tree.job_changed(task.job, task.resreq_vec * sign)

    def _on_allocate(self, event: Event) -> None:
        # ``_change(task, 1)``, inlined (once per placed pod)
        task = event.task
        attr = self.jobs.get(task.job)
        if attr is None or task.resreq_vec is None:
            return
        attr.allocated += task.resreq_vec
        attr.stale = True
        if self.tree is not None:
            self.tree.job_changed(task.job, task.resreq_vec)

    def _on_deallocate(self, event: Event) -> None:
        self._change(event.task, -1)

    # --- hooks ---------------------------------------------------------------------------------
    def _job_order(self, left: JobInfo, right: JobInfo) -> int:
        """Return the job with the smaller dominant share first."""
        la, ra = self.jobs.get(left.uid), self.jobs.get(right.uid)
        if la is None or ra is None or la.share == ra.share:
            return 0
        return -1 if la.share < ra.share else 1

    def _job_order_key(self, job: JobInfo) -> float:
        """Return the job's dominant share (``_job_order`` as a key; every job has one)."""
        return self.jobs[job.uid].share

    def _preemptable(self, preemptor: TaskInfo, candidates: list[TaskInfo]) -> list[TaskInfo]:
        """Return candidates whose job would still hold at least the preemptor job's share."""
        own = self.jobs.get(preemptor.job)
        if own is None or preemptor.resreq_vec is None:
            return []
        preemptor_share = self.share_of(own.allocated + preemptor.resreq_vec)
        remaining: dict[str, IntRow] = {}
        victims = []
        for task in candidates:
            attr = self.jobs.get(task.job)
            if attr is None or task.resreq_vec is None:
                continue
            allocated = remaining.get(task.job)
            if allocated is None:
                allocated = remaining[task.job] = attr.allocated.copy()
            victim_share = self.share_of(allocated - task.resreq_vec)
            if preemptor_share < victim_share or abs(preemptor_share - victim_share) <= SHARE_DELTA:
                allocated -= task.resreq_vec
                victims.append(task)
        return victims

    def _reclaimable(self, reclaimer: TaskInfo, candidates: list[TaskInfo]) -> list[TaskInfo]:
        """Return candidates whose queue would still be served after the reclaimer's queue."""
        assert self.tree is not None
        jobs = self._ssn.jobs
        job = jobs.get(reclaimer.job)
        if job is None or reclaimer.resreq_vec is None:
            return []
        queues = self._ssn.queues
        own_queue: QueueInfo = queues[job.queue]
        victims = []
        with self.tree.simulation() as sim:
            sim.move(reclaimer.job, reclaimer.resreq_vec)
            for task in candidates:
                victim_job = jobs.get(task.job)
                if victim_job is None or task.resreq_vec is None:
                    continue
                sim.move(task.job, -task.resreq_vec)
                before = sim.compare_queues(own_queue, queues[victim_job.queue])
                sim.move(task.job, task.resreq_vec)
                if before < 0:
                    victims.append(task)
        return victims
