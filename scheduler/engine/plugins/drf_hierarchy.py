"""Hierarchical DRF: the weighted queue tree of drf's ``enableHierarchy`` mode.

Volcano's counterpart: the ``hierarchicalNode`` part of ``pkg/scheduler/plugins/drf/drf.go``.
The tree is root → the segments of each queue's ``volcano.sh/hierarchy`` annotation (``root/eng/
dev``), weighted by ``volcano.sh/hierarchy-weights`` (``100/50/50``; below 1 counts as 1) → one
leaf per job. A leaf is *saturated* when it holds all it asked for in some column, or asks for a
column the cluster has no more of. An inner node's allocation is its saturated children's
allocation plus the others' scaled to the smallest dominant share among them, so a queue's
standing reflects what its busiest unsaturated child would have at the fairest split. Queues are
compared root-down: an unsaturated node beats a saturated one, then share / weight decides.

Not a plugin on its own (``drf.py`` uses it); every change recomputes the whole tree, as in
Volcano, which is fine for the tens of queues hierarchical setups have.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from scheduler.engine.api.resource import CPU, MEMORY
from scheduler.engine.util import quota
from scheduler.engine.util.quota import FloatRow, IntRow

if TYPE_CHECKING:
    from scheduler.engine.api.queue_info import QueueInfo
    from scheduler.engine.framework.session import Session

__all__ = ["HierarchyTree"]

ShareFn = Callable[[IntRow | FloatRow], float]


@dataclass(slots=True, eq=False)
class _Node:
    name: str
    weight: float
    allocated: FloatRow | IntRow
    request: IntRow | None = None  # leaves only: the job's total request
    children: dict[str, _Node] = field(default_factory=dict)
    share: float = 0.0
    saturated: bool = False

    @property
    def is_leaf(self) -> bool:
        return self.request is not None


def _weight(weights: list[str], i: int) -> float:
    try:
        value = float(weights[i])
    except (IndexError, ValueError):
        value = 1.0
    return max(value, 1.0)


class HierarchyTree:
    """The queue tree and its shares; ``compare_queues`` is drf's hierarchical queue order."""

    __slots__ = ("_always", "_share_of", "leaves", "root", "total", "total_allocated")

    def __init__(self, total: IntRow, share_of: ShareFn, always: np.ndarray) -> None:
        self.total = total
        self._share_of = share_of
        self._always = always  # cpu and memory columns: checked even when nothing is allocated
        self.root = _Node("root", 1.0, np.zeros(len(total), dtype=np.float64))
        self.leaves: dict[str, _Node] = {}
        self.total_allocated = np.zeros(len(total), dtype=np.int64)

    @classmethod
    def build(
        cls, ssn: Session, total: IntRow, share_of: ShareFn, allocated: dict[str, IntRow]
    ) -> HierarchyTree:
        """Return the tree of the session's jobs, with shares computed."""
        index = ssn.resource_index
        always = np.zeros(len(index), dtype=np.bool_)
        always[[index.position[CPU], index.position[MEMORY]]] = True
        tree = cls(total, share_of, always)
        for uid in sorted(ssn.jobs):
            job = ssn.jobs[uid]
            queue = ssn.queues[job.queue]
            paths = queue.hierarchy.split("/")
            weights = queue.hierarchy_weights.split("/")
            node = tree.root
            for i in range(1, len(paths)):
                child = node.children.get(paths[i])
                if child is None:
                    child = _Node(paths[i], _weight(weights, i), np.zeros(len(total)))
                    node.children[paths[i]] = child
                node = child
            request = quota.row(index, job.total_request())
            leaf = _Node(uid, 1.0, allocated[uid], request=request)
            node.children[uid] = leaf
            tree.leaves[uid] = leaf
            tree.total_allocated += allocated[uid]
        tree.recompute()
        return tree

    # --- shares ------------------------------------------------------------------------------
    def recompute(self) -> None:
        """Recompute every node's saturation, allocation and share, leaves first."""
        demanding = self.total_allocated < self.total
        self._update(self.root, demanding)

    def _update(self, node: _Node, demanding: np.ndarray) -> None:
        if node.request is not None:
            allocated, request = node.allocated, node.request
            node.share = self._share_of(allocated)
            checked = (allocated != 0) | self._always
            full = checked & (allocated != 0) & (request != 0) & (allocated >= request)
            scarce = checked & ~demanding & (request != 0)
            node.saturated = bool(full.any() or scarce.any())
            return
        mdr = 1.0
        for child in node.children.values():
            self._update(child, demanding)
            if child.share != 0 and not child.saturated:
                mdr = min(mdr, child.share)
        allocated = np.zeros(len(self.total), dtype=np.float64)
        saturated = True
        for child in node.children.values():
            saturated = saturated and child.saturated
            if child.share == 0:
                continue
            if child.saturated:
                allocated += child.allocated
            else:
                allocated += child.allocated * (mdr / child.share)
        node.allocated = allocated
        node.share = self._share_of(allocated)
        node.saturated = saturated

    def job_changed(self, uid: str, delta: IntRow) -> None:
        """Account a change of ``delta`` in job ``uid`` (its leaf row is already updated)."""
        self.total_allocated += delta
        self.recompute()

    # --- order ---------------------------------------------------------------------------------
    def compare_queues(self, left: QueueInfo, right: QueueInfo) -> int:
        """Return negative when ``left`` should be served first (drf's hierarchical QueueOrder)."""
        lpaths, rpaths = left.hierarchy.split("/"), right.hierarchy.split("/")
        depth = min(len(lpaths), len(rpaths))
        lnode: _Node | None = self.root
        rnode: _Node | None = self.root
        for i in range(depth):
            if lnode is None or rnode is None:
                return 0
            if lnode.saturated != rnode.saturated:
                return 1 if lnode.saturated else -1
            lvalue, rvalue = lnode.share / lnode.weight, rnode.share / rnode.weight
            if lvalue != rvalue:
                return -1 if lvalue < rvalue else 1
            if i < depth - 1:
                lnode = lnode.children.get(lpaths[i + 1])
                rnode = rnode.children.get(rpaths[i + 1])
        return 0

    # --- what-if -------------------------------------------------------------------------------
    def clone(self) -> HierarchyTree:
        """Return a copy whose leaves own copies of their rows (for simulations)."""
        twin = HierarchyTree(self.total, self._share_of, self._always)
        twin.total_allocated = self.total_allocated.copy()

        def copy(node: _Node) -> _Node:
            new = _Node(
                node.name,
                node.weight,
                node.allocated.copy(),
                request=node.request,
                share=node.share,
                saturated=node.saturated,
            )
            for key, child in node.children.items():
                new.children[key] = copy(child)
                if child.request is not None:
                    twin.leaves[key] = new.children[key]
            return new

        twin.root = copy(self.root)
        return twin

    @contextmanager
    def simulation(self) -> Iterator[_Simulation]:
        """Yield a what-if copy of the tree: moves on it never touch the real shares."""
        yield _Simulation(self.clone())


class _Simulation:
    """Moves tasks' requests in and out of jobs on a cloned tree."""

    __slots__ = ("tree",)

    def __init__(self, tree: HierarchyTree) -> None:
        self.tree = tree

    def move(self, job: str, delta: IntRow) -> None:
        """Add ``delta`` (negative to remove) to job ``job`` and recompute."""
        leaf = self.tree.leaves.get(job)
        if leaf is None:
            return
        leaf.allocated = leaf.allocated + delta
        self.tree.total_allocated += delta
        self.tree.recompute()

    def compare_queues(self, left: QueueInfo, right: QueueInfo) -> int:
        """Return the queue order on the simulated tree."""
        return self.tree.compare_queues(left, right)
