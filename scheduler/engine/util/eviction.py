"""What preempt and reclaim share: the victim order, the node filter and a cheap bound per node.

Volcano's counterpart: ``BuildVictimsPriorityQueue`` (``framework/session_plugins.go``),
``ValidateVictims`` and ``PredicateForPreemptAction`` (``pkg/scheduler/util``). Volcano walks every
node for every preemptor and asks the plugins for victims there; here a node is only asked when
its future idle plus everything that *could* be evicted on it (running tasks of the right queues,
kept per queue in NumPy rows) covers the request. That bound is exact for "skip the node if the
victims cannot cover the request", so the nodes visited, and the decisions, are Volcano's; the
cost per preemptor is one vectorised comparison instead of a Python loop over the cluster.
"""

from __future__ import annotations

from functools import cmp_to_key
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from scheduler.engine.api.types import TaskStatus
from scheduler.engine.util.node_select import NodeSelector
from scheduler.engine.util.row_fit import rows_covering

if TYPE_CHECKING:
    from scheduler.engine.actions.preempt_topology import CandidateWindow
    from scheduler.engine.api.node_info import NodeInfo
    from scheduler.engine.api.task_info import TaskInfo
    from scheduler.engine.framework.session import Session
    from scheduler.engine.framework.statement import Statement

__all__ = ["EvictionContext", "victim_order"]

Matrix = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


_HOLDING = (TaskStatus.BOUND, TaskStatus.RUNNING)


def victim_order(ssn: Session, victims: list[TaskInfo], preemptor: TaskInfo) -> list[TaskInfo]:
    """Return ``victims`` in the order they are evicted (Volcano's victims priority queue).

    Same job: the task the task order puts last goes first. A task whose job is gone goes
    first. Jobs of one queue: the job the job order puts last goes first (ties by reversed task
    order). Different queues: the victim queue order.
    """
    preemptor_job = ssn.jobs.get(preemptor.job)

    def compare(left: TaskInfo, right: TaskInfo) -> int:
        if left.job == right.job:
            return -ssn.task_order_cmp(left, right)
        ljob, rjob = ssn.jobs.get(left.job), ssn.jobs.get(right.job)
        if ljob is None or rjob is None:
            return (ljob is not None) - (rjob is not None)
        if preemptor_job is None or ljob.queue == rjob.queue:
            return -ssn.job_order_cmp(ljob, rjob) or -ssn.task_order_cmp(left, right)
        lq, rq = ssn.queues[ljob.queue], ssn.queues[rjob.queue]
        pq = ssn.queues[preemptor_job.queue]
        if ssn.victim_queue_order_fn(lq, rq, pq):
            return -1
        return 1 if ssn.victim_queue_order_fn(rq, lq, pq) else 0

    return sorted(victims, key=cmp_to_key(compare))


class EvictionContext:
    """Per-action state: node selector, per-queue evictable rows, unresolvable-node cache."""

    __slots__ = (
        "_dirty",
        "_no_room",
        "_refused",
        "_unresolvable",
        "by_queue",
        "reclaimable_total",
        "selector",
        "ssn",
        "version",
        "window",
    )

    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn
        self.selector = NodeSelector.of(ssn)
        shape = ssn.arrays.allocatable.shape
        self.by_queue: dict[str, Matrix] = {}
        self.reclaimable_total: Matrix = np.zeros(shape, dtype=np.int64)
        self._dirty: set[int] = set()
        self._unresolvable: dict[tuple[object, ...], BoolArray] = {}
        # Bumped whenever the session state moves to a state not seen before (a kept placement,
        # an undone job); nodes found without room are remembered per version.
        self.version = 0
        # preempt's topology-aware candidate window (a CandidateWindow), when that mode is on.
        self.window: CandidateWindow | None = None
        self._no_room: dict[tuple[object, ...], tuple[int, BoolArray]] = {}
        # per reclaiming queue: rows whose candidates a static plugin refuses for good
        self._refused: dict[str, BoolArray] = {}
        for node in ssn.node_list:
            self._fill(node)

    # --- the per-node bound ------------------------------------------------------------------
    def _fill(self, node: NodeInfo) -> None:
        """Add the node's Bound/Running preemptable tasks to the per-queue rows."""
        jobs, queues, row = self.ssn.jobs, self.ssn.queues, node.index
        for task in node.tasks.values():
            if task.status not in _HOLDING or not task.preemptable or task.resreq_vec is None:
                continue
            job = jobs.get(task.job)
            if job is None:
                continue
            matrix = self.by_queue.get(job.queue)
            if matrix is None:
                matrix = self.by_queue[job.queue] = np.zeros_like(self.reclaimable_total)
            matrix[row] += task.resreq_vec
            if queues[job.queue].reclaimable:
                self.reclaimable_total[row] += task.resreq_vec

    def _flush(self) -> None:
        if not self._dirty:
            return
        rows = sorted(self._dirty)
        self._dirty.clear()
        for matrix in (*self.by_queue.values(), self.reclaimable_total):
            matrix[rows] = 0
        for row in rows:
            self._fill(self.ssn.node_list[row])

    def touched(self, stmt: Statement) -> None:
        """Note the nodes ``stmt`` evicted on (their evictable rows change)."""
        nodes = self.ssn.nodes
        for op in stmt.operations:
            node = nodes.get(op.node)
            if node is not None:
                self._dirty.add(node.index)

    def discard(self, stmt: Statement) -> None:
        """Discard ``stmt``, keeping the per-node bound right."""
        self.touched(stmt)
        stmt.discard()

    def preempt_bound(self, queue: str) -> Matrix:
        """Return per node what tasks of ``queue`` could free at most."""
        self._flush()
        found = self.by_queue.get(queue)
        return found if found is not None else np.zeros_like(self.reclaimable_total)

    def reclaim_bound(self, queue: str) -> Matrix:
        """Return per node what tasks of other, reclaimable queues could free at most."""
        self._flush()
        own = self.by_queue.get(queue)
        if own is None or not self.ssn.queues[queue].reclaimable:
            return self.reclaimable_total
        return self.reclaimable_total - own

    # --- nodes known to give nothing ------------------------------------------------------------
    def no_room(self, key: tuple[object, ...]) -> BoolArray:
        """Return the rows known to give no usable victims for ``key`` in the current state.

        The caller marks rows in the returned array; it is valid until ``version`` changes.
        """
        found = self._no_room.get(key)
        if found is None or found[0] != self.version:
            found = (self.version, np.zeros(len(self.ssn.node_list), dtype=np.bool_))
            self._no_room[key] = found
        return found[1]

    def refused_for_good(self, queue: str) -> BoolArray:
        """Return the rows where reclaim for ``queue`` can never find victims this session
        (``Session.reclaim_refused_for_good``); the caller marks them. Every version keeps them:
        such a node's candidates change only if a task is placed there, which needs victims."""
        found = self._refused.get(queue)
        if found is None:
            found = self._refused[queue] = np.zeros(len(self.ssn.node_list), dtype=np.bool_)
        return found

    # --- node filter ---------------------------------------------------------------------------
    def candidate_rows(self, task: TaskInfo, bound: Matrix) -> npt.NDArray[np.int64]:
        """Return the rows (in name order) where evictions could make room for ``task``.

        The node must not be recorded unresolvable for the task, must pass the predicates or
        fail them only in a way evictions can resolve, and its future idle plus ``bound`` must
        cover the request.
        """
        ssn = self.ssn
        assert task.resreq_vec is not None
        cover = rows_covering(ssn.arrays.future_idle, bound, task.resreq_vec)
        if not cover.any():  # nothing to free anywhere: skip the predicates and scores
            return np.zeros(0, dtype=np.int64)
        entry = self.selector.entry(task)
        ok = cover & entry.passes
        unresolvable = self._unresolvable_rows(task)
        maybe = cover & ~entry.passes & ~unresolvable
        for row in np.flatnonzero(maybe).tolist():
            status = ssn.predicate_fn(task, ssn.node_list[row])
            if status is None or status.resolvable_by_eviction:
                ok[row] = True
            else:
                unresolvable[row] = True
        known = ssn.unresolvable_nodes.get(task.uid)
        if known:
            for name in known:
                node = ssn.nodes.get(name)
                if node is not None:
                    ok[node.index] = False
        return np.flatnonzero(ok).astype(np.int64)

    def covering_rows(
        self, task: TaskInfo, bound: Matrix, skip: BoolArray | None = None
    ) -> list[int]:
        """Return the rows (in name order) whose future idle plus ``bound`` covers ``task``.

        The lazy form of ``candidate_rows`` for a walk that stops early: the caller checks each
        row it visits with ``passes_preempt_predicate`` instead of filtering every node first.
        Rows set in ``skip`` are left out.
        """
        assert task.resreq_vec is not None
        cover = rows_covering(self.ssn.arrays.future_idle, bound, task.resreq_vec)
        known = self.ssn.unresolvable_nodes.get(task.uid)
        if known:
            for name in known:
                node = self.ssn.nodes.get(name)
                if node is not None:
                    cover[node.index] = False
        if skip is not None:
            cover &= ~skip
        rows: list[int] = np.flatnonzero(cover).tolist()
        return rows

    def passes_preempt_predicate(self, task: TaskInfo, row: int) -> bool:
        """Return True when the node passes the predicates, or fails them only resolvably."""
        unresolvable = self._unresolvable_rows(task)
        if unresolvable[row]:
            return False
        status = self.ssn.predicate_fn(task, self.ssn.node_list[row])
        if status is None or status.resolvable_by_eviction:
            return True
        unresolvable[row] = True
        return False

    def _unresolvable_rows(self, task: TaskInfo) -> BoolArray:
        key = task.template_key or task.compute_template_key()
        found = self._unresolvable.get(key)
        if found is None:
            found = self._unresolvable[key] = np.zeros(len(self.ssn.node_list), dtype=np.bool_)
        return found

    def by_score(self, task: TaskInfo, rows: npt.NDArray[np.int64]) -> list[int]:
        """Return ``rows`` by descending node score for ``task`` (ties: name order)."""
        scores = self.selector.entry(task).scores[rows]
        return [int(r) for r in rows[np.argsort(-scores, kind="stable")]]

    @staticmethod
    def covers(node: NodeInfo, victims: list[TaskInfo], request: npt.NDArray[np.int64]) -> bool:
        """Return True when the node's future idle plus the victims hold ``request`` (and some
        victim exists): Volcano's ``ValidateVictims``."""
        if not victims or node.arrays is None:
            return False
        room = node.arrays.future_idle[node.index].copy()
        for victim in victims:
            if victim.resreq_vec is not None:
                room += victim.resreq_vec
        return bool((request <= room).all())
