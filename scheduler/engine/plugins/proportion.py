"""Proportion plugin: each queue deserves a weighted, water-filled part of the cluster.

Volcano's counterpart: ``pkg/scheduler/plugins/proportion``. Only queues that hold at least one job
take part. A queue's deserved share grows by weight until it covers what its jobs ask for, its
capability (``realCapability``: the cluster less everyone else's guarantee, capped by the queue's
capability) or the cluster runs out; guarantees are always deserved. From that: queue order
(smaller share first), overused (deserved ≤ allocated everywhere), allocatable and preemptive
(allocated + request ≤ deserved on the requested columns), reclaimable (a queue above its deserved
gives up tasks) and the enqueue vote (minResources against realCapability).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import ABSTAIN, PERMIT, REJECT, PodGroupPhase
from scheduler.engine.framework import Event, EventHandler, Plugin, Session, register_plugin
from scheduler.engine.util import quota
from scheduler.engine.util.quota import FloatRow, IntRow

__all__ = ["ProportionPlugin", "QueueAttr", "water_fill"]

# ``ndarray.all`` without its Python-level wrapper (asked once or twice per placed pod)
_all = np.logical_and.reduce


@dataclass(slots=True, eq=False)
class QueueAttr:
    """One queue's accounting for the session (rows of the session's resource index)."""

    name: str
    weight: int
    capability: IntRow
    real_capability: IntRow
    guarantee: IntRow
    allocated: IntRow
    request: IntRow
    inqueue: IntRow
    elastic: IntRow
    deserved: FloatRow
    # The share as last computed; ``stale`` once allocated or deserved changed since.
    cached_share: float = 0.0
    stale: bool = True
    # Derived from deserved by set_deserved: the bound "≤ deserved" compares against (tolerance
    # included) and 1/deserved where deserved counts, so per-event work is one multiply.
    deserved_upper: FloatRow = field(default_factory=lambda: np.zeros(0))
    inverse: FloatRow = field(default_factory=lambda: np.zeros(0))
    # The same three rows as Python floats, for the per-pod tests (``_overused``,
    # ``_allocatable``, ``update_share``): a handful of columns is faster in scalars.
    deserved_values: list[float] = field(default_factory=list)
    upper_values: list[float] = field(default_factory=list)
    inverse_values: list[float] = field(default_factory=list)

    def set_deserved(self, deserved: FloatRow) -> None:
        """Set deserved and what is derived from it, then the share."""
        self.deserved = deserved
        self.deserved_upper = deserved + quota.slack(deserved)
        counted = deserved >= 0.1
        self.inverse = np.where(counted, 1.0 / np.where(counted, deserved, 1.0), 0.0)
        self.deserved_values = deserved.tolist()
        self.upper_values = self.deserved_upper.tolist()
        self.inverse_values = self.inverse.tolist()
        self.update_share()

    def update_share(self) -> None:
        """Mark the share for recomputation: it is read when queues are ordered (once per
        round), not after each pod a round places, so it is computed then (``share``)."""
        self.stale = True

    @property
    def share(self) -> float:
        """Return the share: max of allocated / deserved over the deserved columns.

        In scalars: NumPy's ``max(allocated * inverse)`` converts each int64 amount to float64
        and multiplies, as ``int * float`` does in Python.
        """
        if self.stale:
            self.stale = False
            inverse = self.inverse_values
            self.cached_share = (
                max([a * b for a, b in zip(self.allocated.tolist(), inverse, strict=True)])
                if inverse
                else 0.0
            )
        return self.cached_share

    def within_deserved(self, allocated: IntRow) -> bool:
        """Return True when ``allocated`` ≤ deserved in every column."""
        return bool(_all(allocated <= self.deserved_upper))


def build_attrs(ssn: Session, *, flat_guarantees: bool = True) -> dict[str, QueueAttr]:
    """Return an attribute per queue that holds a job, with allocated/request/inqueue/elastic.

    ``realCapability`` = (cluster total - every queue's guarantee, at least 0) + own guarantee,
    capped by the capability (capacity's flat mode uses the same rule): a queue with no job still
    reserves its guarantee against the others. The per-job amounts come from
    ``quota.job_amounts`` (all jobs at once); queues appear in the order of their first job.
    """
    index = ssn.resource_index
    width = len(index)
    total = ssn.arrays.allocatable.sum(axis=0)
    guarantees = (
        quota.total((quota.row(index, q.guarantee) for q in ssn.queues.values()), width)
        if flat_guarantees
        else np.zeros(width, dtype=np.int64)
    )
    amounts = quota.job_amounts(ssn)
    attrs: dict[str, QueueAttr] = {}
    members: dict[str, list[int]] = {}  # queue -> job rows of ``amounts``
    minimum = np.zeros((len(amounts.position), width), dtype=np.int64)  # minResources rows
    with_minimum: tuple[list[int], list[IntRow]] = ([], [])  # (job row, minResources row)
    reserving = (PodGroupPhase.INQUEUE, PodGroupPhase.RUNNING)  # see quota.inqueue_uncovered
    for job in ssn.jobs.values():
        row = amounts.position[job.uid]
        rows = members.get(job.queue)
        if rows is None:
            rows = members[job.queue] = []
            queue = ssn.queues[job.queue]
            guarantee = quota.row(index, queue.guarantee)
            capability = quota.capability_row(index, queue.capability)
            attr = QueueAttr(
                name=queue.name,
                weight=queue.weight,
                capability=capability,
                real_capability=quota.real_capability(total, guarantees, guarantee, capability),
                guarantee=guarantee,
                allocated=np.zeros(width, dtype=np.int64),
                request=np.zeros(width, dtype=np.int64),
                inqueue=np.zeros(width, dtype=np.int64),
                elastic=np.zeros(width, dtype=np.int64),
                deserved=np.zeros(width, dtype=np.float64),
            )
            attr.set_deserved(attr.deserved)
            attrs[job.queue] = attr
        rows.append(row)
        if job.min_resources is not None:
            with_minimum[0].append(row)
            with_minimum[1].append(index.vector(job.min_resources))
            if job.phase in reserving:
                inqueue = quota.inqueue_uncovered(job, index, amounts.allocated[row])
                if inqueue is not None:
                    attrs[job.queue].inqueue += inqueue
    if with_minimum[0]:
        minimum[with_minimum[0]] = with_minimum[1]
    # Per queue, the sums over its jobs (exact int64 sums: the order does not matter).
    elastic = np.maximum(amounts.allocated - minimum, 0)
    for name, rows in members.items():
        attr = attrs[name]
        picked = np.array(rows, dtype=np.int64)
        allocated = amounts.allocated[picked].sum(axis=0)
        attr.allocated += allocated
        attr.request += allocated + amounts.pending[picked].sum(axis=0)
        attr.elastic += elastic[picked].sum(axis=0)
    return attrs


def water_fill(attrs: list[QueueAttr], total: IntRow) -> None:
    """Set every queue's deserved by weight, round after round, until nothing is left to give.

    In a round each queue not yet satisfied gets remaining x weight / (sum of unsatisfied
    weights), capped by its realCapability and its request, floored by its guarantee. A queue is
    satisfied when it deserves all it asks for or stopped growing. What the caps took back is
    given out again next round.
    """
    remaining = total.astype(np.float64)
    met: set[str] = set()
    while True:
        weight_sum = sum(a.weight for a in attrs if a.name not in met)
        if weight_sum == 0:
            break
        before = remaining.copy()
        grown = np.zeros_like(remaining)
        shrunk = np.zeros_like(remaining)
        for attr in attrs:
            if attr.name in met:
                continue
            old = attr.deserved.copy()
            deserved = old + remaining * (attr.weight / weight_sum)
            deserved = np.minimum(deserved, attr.real_capability)
            deserved = np.minimum(deserved, attr.request)
            attr.set_deserved(np.maximum(deserved, attr.guarantee))
            if quota.le_all(attr.request, attr.deserved) or np.array_equal(attr.deserved, old):
                met.add(attr.name)
            delta = attr.deserved - old
            grown += np.maximum(delta, 0)
            shrunk += np.maximum(-delta, 0)
        remaining = np.maximum(remaining - grown + shrunk, 0)
        if not remaining.any() or np.array_equal(remaining, before):
            break


@register_plugin
class ProportionPlugin(Plugin):
    """Weighted fair share between queues, water-filled over what each queue asks for."""

    name = "proportion"

    def on_session_open(self, ssn: Session) -> None:
        """Compute deserved shares and register the queue hooks and event handlers."""
        self._ssn = ssn
        self._index = ssn.resource_index
        self._pods = self._index.position["pods"]
        # 1. Per-queue accounting from the snapshot.
        self.attrs = build_attrs(ssn)
        # 2. Deserved, by weight, water-filled.
        water_fill(list(self.attrs.values()), ssn.arrays.allocatable.sum(axis=0))
        # Per queue, the bound of the enqueue test (realCapability does not change), and memos
        # of what the tests derive from request rows.
        self._real_upper = {
            name: quota.upper_bound(attr.real_capability).tolist()
            for name, attr in self.attrs.items()
        }
        self._rows = quota.RowMemo.shared(ssn.scratch, self._index)
        # 3. Hooks.
        ssn.add_queue_order_fn(self.name, self._queue_order, key=self._queue_order_key)
        ssn.add_overused_fn(self.name, self._overused)
        ssn.add_allocatable_fn(self.name, self._allocatable)
        ssn.add_preemptive_fn(self.name, self._allocatable)
        ssn.add_reclaimable_fn(self.name, self._reclaimable)
        ssn.add_job_enqueueable_fn(self.name, self._enqueueable)
        ssn.add_job_enqueued_fn(self.name, self._enqueued)
        ssn.add_event_handler(EventHandler(self._on_allocate, self._on_deallocate))

    # --- events --------------------------------------------------------------------------------
    def _attr_of(self, task: TaskInfo) -> QueueAttr | None:
        job = self._ssn.jobs.get(task.job)
        return None if job is None else self.attrs.get(job.queue)

    def _on_allocate(self, event: Event) -> None:
        task = event.task  # (``_attr_of`` inlined: once per placed pod)
        job = self._ssn.jobs.get(task.job)
        attr = None if job is None else self.attrs.get(job.queue)
        if attr is not None and task.resreq_vec is not None:
            attr.allocated += task.resreq_vec
            attr.update_share()

    def _on_deallocate(self, event: Event) -> None:
        attr = self._attr_of(event.task)
        if attr is not None and event.task.resreq_vec is not None:
            attr.allocated -= event.task.resreq_vec
            attr.update_share()

    # --- hooks ---------------------------------------------------------------------------------
    def _queue_order(self, left: QueueInfo, right: QueueInfo) -> int:
        """Return higher queue priority first, then the smaller share first."""
        if left.priority != right.priority:
            return -1 if left.priority > right.priority else 1
        la, ra = self.attrs.get(left.name), self.attrs.get(right.name)
        if la is None or ra is None or la.share == ra.share:
            return 0
        return -1 if la.share < ra.share else 1

    def _queue_order_key(self, queue: QueueInfo) -> tuple[int, float]:
        """Return ``_queue_order`` as a key (only queues holding a job are ever ordered)."""
        return (-queue.priority, self.attrs[queue.name].share)

    def _overused(self, queue: QueueInfo) -> bool:
        """Return True when the queue has at least its deserved in every column."""
        attr = self.attrs.get(queue.name)
        if attr is None:
            return False
        # quota.le_all(deserved, allocated) in scalars (allocated is exact: no tolerance)
        allocated = attr.allocated.tolist()
        for d, a in zip(attr.deserved_values, allocated, strict=True):  # noqa: SIM110 - cheaper than all()
            if not d <= float(a):
                return False
        return True

    def _allocatable(self, queue: QueueInfo, task: TaskInfo) -> bool:
        """Return True when the queue is Open and stays within deserved on the task's columns."""
        if not queue.is_open():
            return False
        attr = self.attrs.get(queue.name)
        if attr is None or task.resreq_vec is None:
            return True
        # allocated + request <= deserved on the requested columns, in scalars (per placed pod)
        # (see quota.fits_scalar for why float(int) <= bound is NumPy's comparison)
        cols, request = self._rows.columns(task.resreq_vec)
        allocated, upper = attr.allocated.tolist(), attr.upper_values
        for c in cols:  # noqa: SIM110 - a plain loop: all() over a generator costs more
            if not float(allocated[c] + request[c]) <= upper[c]:
                return False
        return True

    def _reclaimable(self, reclaimer: TaskInfo, candidates: list[TaskInfo]) -> list[TaskInfo]:
        """Return candidates of queues above their deserved, until each queue is back within it."""
        running: dict[str, IntRow] = {}
        over: dict[str, bool] = {}  # per queue: is the running allocation above deserved?
        jobs, attrs = self._ssn.jobs, self.attrs
        victims = []
        for task in candidates:
            job = jobs.get(task.job)
            attr = None if job is None else attrs.get(job.queue)
            if attr is None or task.resreq_vec is None:
                continue
            name = attr.name
            above = over.get(name)
            if above is None:
                above = over[name] = not attr.within_deserved(attr.allocated)
            if not above:
                continue
            allocated = running.get(name)
            if allocated is None:
                allocated = running[name] = attr.allocated.copy()
            if (allocated < task.resreq_vec).any():
                continue
            allocated -= task.resreq_vec
            victims.append(task)
            over[name] = not attr.within_deserved(allocated)
        return victims

    def _enqueueable(self, job: JobInfo) -> int:
        """Vote on admitting ``job``: its minResources must fit the queue's realCapability."""
        queue = self._ssn.queues.get(job.queue)
        if queue is None or not queue.is_open():
            return REJECT
        if job.min_resources is None:
            return PERMIT
        attr = self.attrs.get(job.queue)
        if attr is None:
            return ABSTAIN
        # quota.fits_on(minimum + allocated + inqueue - elastic, realCapability, dims), on the
        # requested columns only, in Python scalars (asked once per Pending job)
        # (see quota.fits_scalar for why float(int) <= bound is NumPy's comparison)
        _, cols, minimum = self._rows.minimum(job.min_resources)
        allocated, inqueue = attr.allocated.tolist(), attr.inqueue.tolist()
        elastic, upper = attr.elastic.tolist(), self._real_upper[job.queue]
        for c in cols:
            if not float(minimum[c] + allocated[c] + inqueue[c] - elastic[c]) <= upper[c]:
                return REJECT
        return PERMIT

    def _enqueued(self, job: JobInfo) -> None:
        """Reserve the admitted job's minResources (less gated tasks) in its queue."""
        attr = self.attrs.get(job.queue)
        if attr is None or job.min_resources is None:
            return
        attr.inqueue += self._rows.reserve(job)
