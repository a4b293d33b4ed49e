"""Capacity plugin: queues get their configured ``deserved``, may borrow up to capability, and are
reclaimed back to it.

Volcano's counterpart: ``pkg/scheduler/plugins/capacity``. Unlike proportion, deserved is not
computed: it is ``spec.deserved`` (at least the guarantee). Allocation is bounded by
``realCapability`` (the cluster less the others' guarantees, capped by capability), so a queue may
run above its deserved while others are idle; reclaim then takes back from queues above deserved
on the columns the reclaimer needs. With ``enableHierarchy: true`` queues form a tree through
``spec.parent`` (``capacity_tree.py``): only leaves hold jobs, every quota test also holds for each
ancestor, and a broken tree (missing parent, cycle, job in an inner queue) stops allocation for
the session. ``ancestorReclaimLevel`` lets a queue reclaim for an ancestor's deserved.
"""

from __future__ import annotations

from functools import cmp_to_key

import numpy as np

from scheduler.engine.api.eviction import EvictionKind, GangEvictionContext
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import PERMIT, REJECT
from scheduler.engine.framework import (
    ArgSpec,
    Event,
    EventHandler,
    Plugin,
    Session,
    register_plugin,
)
from scheduler.engine.plugins.capacity_tree import CapacityAttr, CapacityTree
from scheduler.engine.util import quota
from scheduler.engine.util.quota import IntRow

__all__ = ["CapacityPlugin"]


@register_plugin
class CapacityPlugin(Plugin):
    """Configured deserved per queue, elastic up to realCapability, reclaimed back to deserved."""

    name = "capacity"
    arguments_schema = (ArgSpec("ancestorReclaimLevel", int, 0),)

    def on_session_open(self, ssn: Session) -> None:
        """Build the queue attributes (flat or tree) and register the hooks."""
        self._ssn = ssn
        self._index = ssn.resource_index
        self.level = max(self.arguments.get_int("ancestorReclaimLevel"), 0)
        option = next((o for o in ssn.conf.plugin_options() if o.name == self.name), None)
        hierarchical = option is not None and option.enabled("enableHierarchy")
        self.tree = CapacityTree.build(ssn, hierarchical=hierarchical)
        ssn.add_queue_order_fn(self.name, self.tree.compare_queues)
        if hierarchical:
            ssn.add_victim_queue_order_fn(self.name, self.tree.compare_victim_queues)
        ssn.add_allocatable_fn(self.name, self._allocatable)
        ssn.add_preemptive_fn(self.name, self._preemptive)
        ssn.add_reclaimable_fn(self.name, self._reclaimable)
        ssn.add_unified_evictable_fn(self.name, self._gang_evictable)
        ssn.add_job_enqueueable_fn(self.name, self._enqueueable)
        ssn.add_job_enqueued_fn(self.name, self._enqueued)
        ssn.add_event_handler(EventHandler(self._on_allocate, self._on_deallocate))

    # --- events --------------------------------------------------------------------------------
    def _change(self, task: TaskInfo, sign: int) -> None:
        job = self._ssn.jobs.get(task.job)
        if job is None or task.resreq_vec is None:
            return
        delta = task.resreq_vec if sign > 0 else -task.resreq_vec
        for attr in self.tree.chain(job.queue):
            attr.allocated += delta
            attr.update_share()

    def _on_allocate(self, event: Event) -> None:
        self._change(event.task, 1)

    def _on_deallocate(self, event: Event) -> None:
        self._change(event.task, -1)

    # --- admission and quota -------------------------------------------------------------------
    def _usable(self, queue: QueueInfo) -> bool:
        """Return True when the session is ready and the queue may take work."""
        tree = self.tree
        if not tree.ready or not queue.is_open():
            return False
        return not tree.hierarchical or tree.is_leaf(queue.name)

    def _allocatable(self, queue: QueueInfo, task: TaskInfo) -> bool:
        """Return True when queue and ancestors stay within realCapability with the task."""
        if not self._usable(queue) or task.resreq_vec is None:
            return False
        request = task.resreq_vec
        dims = quota.quota_dims(self._index, request)
        return all(
            quota.fits_on(attr.allocated + request, attr.real_capability, dims)
            for attr in self.tree.chain(queue.name)
        )

    def _enqueueable(self, job: JobInfo) -> int:
        """Vote on ``job``: its minResources must fit realCapability for queue and ancestors."""
        queue = self._ssn.queues.get(job.queue)
        if queue is None or not self._usable(queue):
            return REJECT
        if job.min_resources is None:
            return PERMIT
        minimum = self._index.vector(job.min_resources)
        dims = quota.quota_dims(self._index, minimum)
        for attr in self.tree.chain(job.queue):
            wanted = minimum + attr.allocated + attr.inqueue - attr.elastic
            if not quota.fits_on(wanted, attr.real_capability, dims):
                return REJECT
        return PERMIT

    def _enqueued(self, job: JobInfo) -> None:
        """Reserve the admitted job's minResources in its queue and every ancestor."""
        if job.min_resources is None:
            return
        minimum = self._index.vector(job.min_resources)
        reserved = np.maximum(minimum - quota.gated_request(job, self._index), 0)
        for attr in self.tree.chain(job.queue):
            attr.inqueue += reserved

    # --- reclaim -------------------------------------------------------------------------------
    def _preemptive(self, queue: QueueInfo, task: TaskInfo) -> bool:
        """Return True when ``queue`` may reclaim for ``task``: under deserved on some column."""
        if not self.tree.ready or not queue.is_open() or task.resreq_vec is None:
            return False
        attr = self.tree.attrs.get(queue.name)
        if attr is None:
            return False
        request = task.resreq_vec
        dims = quota.quota_dims(self._index, request)
        wanted = attr.allocated + request
        if not quota.fits_on(wanted, attr.real_capability, dims):
            return False
        if _partly_within(wanted, attr.deserved, dims):
            return True
        if self.level and self.tree.hierarchical:
            for ancestor in self.tree.chain(queue.name)[1 : self.level + 1]:
                if ancestor.name == self.tree.root_name:
                    break
                if _partly_within(ancestor.allocated + request, ancestor.deserved, dims):
                    return True
        return False

    def _reclaimable(self, reclaimer: TaskInfo, candidates: list[TaskInfo]) -> list[TaskInfo]:
        """Return the candidates whose queues hold more than deserved of what the reclaimer needs."""
        jobs, tree = self._ssn.jobs, self.tree
        reclaimer_job = jobs.get(reclaimer.job)
        if reclaimer_job is None or reclaimer.resreq_vec is None or not tree.ready:
            return []
        wanted = quota.quota_dims(self._index, reclaimer.resreq_vec)
        own_chain = {a.name for a in tree.chain(reclaimer_job.queue)}
        own = tree.attrs.get(reclaimer_job.queue)
        own_relevant = own is not None and bool(np.any(wanted & (own.deserved > 0)))
        running: dict[str, IntRow] = {}

        def allocated_of(attr: CapacityAttr) -> IntRow:
            found = running.get(attr.name)
            if found is None:
                found = running[attr.name] = attr.allocated.copy()
            return found

        victims = []
        for task in self._in_victim_order(reclaimer_job.queue, candidates):
            job = jobs.get(task.job)
            attr = None if job is None else tree.attrs.get(job.queue)
            if job is None or attr is None or task.resreq_vec is None:
                continue
            request = task.resreq_vec
            dims = quota.quota_dims(self._index, request)
            if not np.any(dims & wanted):
                continue
            allocated = allocated_of(attr)
            if np.any((attr.guarantee > 0) & (dims) & (allocated - request < attr.guarantee)):
                continue
            relevant = dims & (attr.deserved > 0)
            # Ancestors of the victim's queue, within the level, that the reclaimer does not share.
            checked = [attr]
            if self.level and tree.hierarchical:
                for ancestor in tree.chain(job.queue)[1 : self.level + 1]:
                    if ancestor.name == tree.root_name:
                        break
                    if ancestor.name in own_chain:
                        if not relevant.any() and not own_relevant:
                            checked = []
                        break
                    checked.append(ancestor)
            if not checked:
                continue
            if relevant.any() and not all(
                quota.exceeds_on(allocated_of(a), a.deserved, dims & (a.deserved > 0))
                for a in checked
            ):
                continue
            for a in checked:
                allocated_of(a)[:] -= request
            victims.append(task)
        return victims

    def _gang_evictable(
        self, ctx: GangEvictionContext, candidates: list[TaskInfo]
    ) -> tuple[list[TaskInfo], int]:
        """gangpreempt: permit all. gangreclaim: keep each victim queue's guarantee, and take
        only pods that share no deserved column or whose queue is above deserved on one of them.

        Volcano's capacity UnifiedEvictable: the candidates in the order given, per queue
        against its allocation less the victims already taken.
        """
        if ctx.kind is EvictionKind.GANG_PREEMPT:
            return candidates, PERMIT
        if not self.tree.ready:
            return [], REJECT
        running: dict[str, IntRow] = {}
        victims = []
        for task in candidates:
            job = self._ssn.jobs.get(task.job)
            attr = None if job is None else self.tree.attrs.get(job.queue)
            if attr is None or task.resreq_vec is None:
                continue
            allocated = running.get(attr.name)
            if allocated is None:
                allocated = running[attr.name] = attr.allocated.copy()
            request = task.resreq_vec
            if not np.all(attr.guarantee <= allocated - request):
                continue
            relevant = quota.quota_dims(self._index, request) & (attr.deserved > 0)
            if relevant.any() and not quota.exceeds_on(allocated, attr.deserved, relevant):
                continue
            allocated -= request
            victims.append(task)
        return victims, PERMIT

    def _in_victim_order(self, queue: str, candidates: list[TaskInfo]) -> list[TaskInfo]:
        """Return ``candidates`` with the victims the session evicts first, first."""
        ssn = self._ssn
        preemptor = ssn.queues[queue]

        def queue_of(task: TaskInfo) -> QueueInfo | None:
            job = ssn.jobs.get(task.job)
            return None if job is None else ssn.queues.get(job.queue)

        def compare(left: TaskInfo, right: TaskInfo) -> int:
            lq, rq = queue_of(left), queue_of(right)
            if lq is None or rq is None or lq is rq:
                return 0
            if ssn.victim_queue_order_fn(lq, rq, preemptor):
                return -1
            return 1 if ssn.victim_queue_order_fn(rq, lq, preemptor) else 0

        return sorted(candidates, key=cmp_to_key(compare))


def _partly_within(wanted: IntRow, deserved: IntRow, dims: np.ndarray) -> bool:
    """Return True when ``wanted`` ≤ deserved on at least one requested column deserved has."""
    usable = dims & (deserved > 0)
    return bool(np.any(usable & (wanted <= deserved)))
