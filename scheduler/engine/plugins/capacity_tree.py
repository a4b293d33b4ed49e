"""The queue attributes of the capacity plugin: flat, or a tree through ``spec.parent``.

Volcano's counterpart: the ``queueAttr`` building of ``pkg/scheduler/plugins/capacity``. In flat
mode only queues holding jobs take part and ``realCapability`` is the cluster less every other
queue's guarantee (queues with no job reserve theirs too), capped by capability. In hierarchical mode every queue takes part, a job's
amounts count in its queue and every ancestor, and quotas are walked down from ``root``: a child
deserves at least its guarantee, inherits the capability columns it leaves unset from its parent,
and its realCapability is its parent's less its siblings' guarantees. Not a plugin on its own.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from scheduler.engine.util import quota
from scheduler.engine.util.quota import UNLIMITED, IntRow

if TYPE_CHECKING:
    from scheduler.engine.api.job_info import JobInfo
    from scheduler.engine.api.queue_info import QueueInfo
    from scheduler.engine.api.resource import ResourceIndex
    from scheduler.engine.framework.session import Session

__all__ = ["ROOT", "CapacityAttr", "CapacityTree"]

ROOT = "root"


@dataclass(slots=True, eq=False)
class CapacityAttr:
    """One queue's quotas and usage for the session."""

    name: str
    capability: IntRow
    guarantee: IntRow
    deserved: IntRow
    allocated: IntRow
    request: IntRow
    inqueue: IntRow
    elastic: IntRow
    real_capability: IntRow
    parent: str | None = None
    children: list[str] = field(default_factory=list)
    # The share as last computed; ``stale`` once allocated or deserved changed since.
    cached_share: float = 0.0
    stale: bool = True

    def update_share(self) -> None:
        """Mark the share for recomputation. A placement changes every queue up the chain, but
        shares are read when queues are ordered (once per round), not after each pod."""
        self.stale = True

    @property
    def share(self) -> float:
        """Return the share: max of allocated / deserved over deserved's columns (1 if none)."""
        if self.stale:
            self.stale = False
            dims = self.deserved > 0
            self.cached_share = (
                quota.share(self.allocated, self.deserved, dims) if dims.any() else 1.0
            )
        return self.cached_share

    def add_job(self, job: JobInfo, index: ResourceIndex) -> None:
        """Add ``job``'s allocated, requested, reserved and elastic amounts."""
        allocated, request = quota.job_allocated_and_request(job, index)
        self.allocated += allocated
        self.request += request
        inqueue = quota.inqueue_uncovered(job, index, allocated)
        if inqueue is not None:
            self.inqueue += inqueue
        self.elastic += np.maximum(allocated - quota.row(index, job.min_resources), 0)


def _attr(queue: QueueInfo | None, name: str, index: ResourceIndex) -> CapacityAttr:
    width = len(index)
    zeros = np.zeros(width, dtype=np.int64)
    return CapacityAttr(
        name=name,
        capability=quota.capability_row(index, None if queue is None else queue.capability),
        guarantee=quota.row(index, None if queue is None else queue.guarantee),
        deserved=quota.row(index, None if queue is None else queue.deserved),
        allocated=zeros.copy(),
        request=zeros.copy(),
        inqueue=zeros.copy(),
        elastic=zeros.copy(),
        real_capability=np.full(width, UNLIMITED, dtype=np.int64),
    )


class CapacityTree:
    """Queue attributes by name, their ancestor chains, and capacity's queue orders."""

    __slots__ = ("_chains", "attrs", "hierarchical", "problem", "ready", "root_name")

    def __init__(self, *, hierarchical: bool) -> None:
        self.attrs: dict[str, CapacityAttr] = {}
        self.hierarchical = hierarchical
        self.ready = True
        self.problem = ""
        self.root_name = ROOT
        self._chains: dict[str, list[CapacityAttr]] = {}

    @classmethod
    def build(cls, ssn: Session, *, hierarchical: bool) -> CapacityTree:
        """Return the attributes of the session's queues, quotas resolved."""
        tree = cls(hierarchical=hierarchical)
        if hierarchical:
            tree._build_tree(ssn)
        else:
            tree._build_flat(ssn)
        for attr in tree.attrs.values():
            attr.update_share()
        return tree

    def _build_flat(self, ssn: Session) -> None:
        index = ssn.resource_index
        total = ssn.arrays.allocatable.sum(axis=0)
        guarantees = quota.total(
            (quota.row(index, q.guarantee) for q in ssn.queues.values()), len(index)
        )
        for job in ssn.jobs.values():
            attr = self.attrs.get(job.queue)
            if attr is None:
                attr = self.attrs[job.queue] = _attr(ssn.queues[job.queue], job.queue, index)
                attr.real_capability = quota.real_capability(
                    total, guarantees, attr.guarantee, attr.capability
                )
                clamped = np.minimum(attr.deserved, attr.real_capability)
                attr.deserved = np.maximum(clamped, attr.guarantee)
            attr.add_job(job, index)

    def _fail(self, problem: str) -> None:
        if self.ready:
            self.ready, self.problem = False, problem

    def _build_tree(self, ssn: Session) -> None:
        index = ssn.resource_index
        # 1. Every queue, and root even when the snapshot lacks it.
        for name, queue in ssn.queues.items():
            self.attrs[name] = _attr(queue, name, index)
        if ROOT not in self.attrs:
            self.attrs[ROOT] = _attr(None, ROOT, index)
        # 2. Parents; a missing parent or a cycle makes the session not ready.
        for name, queue in ssn.queues.items():
            if name == ROOT:
                continue
            parent = queue.parent or ROOT
            if parent not in self.attrs:
                self._fail(f"queue {name}: parent {parent} does not exist")
                continue
            self.attrs[name].parent = parent
            self.attrs[parent].children.append(name)
        for name in self.attrs:
            seen = {name}
            current = self.attrs[name].parent
            while current is not None:
                if current in seen:
                    self._fail(f"queue {name}: its parents form a cycle")
                    break
                seen.add(current)
                current = self.attrs[current].parent
        if not self.ready:
            return
        # 3. Jobs count in their queue and every ancestor; only leaves may hold jobs.
        for job in ssn.jobs.values():
            if self.attrs[job.queue].children:
                self._fail(f"job {job.uid} is in queue {job.queue}, which is not a leaf")
            for attr in self.chain(job.queue):
                attr.add_job(job, index)
        # 4. Quotas, walking down from root.
        root = self.attrs[ROOT]
        root.real_capability = root.capability.copy()
        pending = deque([root])
        while pending:
            above = pending.popleft()
            children = [self.attrs[c] for c in sorted(above.children)]
            siblings = quota.total((c.guarantee for c in children), len(index))
            for child in children:
                child.deserved = np.maximum(child.deserved, child.guarantee)
                child.capability = np.where(
                    child.capability == UNLIMITED, above.capability, child.capability
                )
                child.real_capability = quota.real_capability(
                    above.real_capability, siblings, child.guarantee, child.capability
                )
                pending.append(child)
        top = [self.attrs[c] for c in root.children]
        root.deserved = quota.total((c.deserved for c in top), len(index))
        root.guarantee = quota.total((c.guarantee for c in top), len(index))

    # --- structure -----------------------------------------------------------------------------
    def chain(self, name: str) -> list[CapacityAttr]:
        """Return the queue's attribute, then its ancestors' up to root (flat: just the queue)."""
        found = self._chains.get(name)
        if found is None:
            found = []
            attr = self.attrs.get(name)
            while attr is not None:
                found.append(attr)
                if not self.hierarchical or attr.parent is None or len(found) > len(self.attrs):
                    break
                attr = self.attrs.get(attr.parent)
            self._chains[name] = found
        return found

    def is_leaf(self, name: str) -> bool:
        """Return True when the queue has no child queues."""
        attr = self.attrs.get(name)
        return attr is not None and not attr.children

    def _path(self, name: str) -> list[str]:
        return [a.name for a in reversed(self.chain(name))]

    # --- orders ----------------------------------------------------------------------------------
    def compare_queues(self, left: QueueInfo, right: QueueInfo) -> int:
        """Return negative when ``left`` is served first (capacity's QueueOrder)."""
        if left.priority != right.priority:
            return -1 if left.priority > right.priority else 1
        la, ra = self.attrs.get(left.name), self.attrs.get(right.name)
        if la is None or ra is None or la is ra:
            return 0
        if not self.hierarchical:
            if la.share != ra.share:
                return -1 if la.share < ra.share else 1
            lset, rset = bool(la.deserved.any()), bool(ra.deserved.any())
            return 0 if lset == rset else (-1 if lset else 1)
        lleaf, rleaf = not la.children, not ra.children
        if lleaf != rleaf:
            return -1 if lleaf else 1
        if not lleaf:
            return 0
        lpath, rpath = self._path(left.name), self._path(right.name)
        for lname, rname in zip(lpath, rpath, strict=False):
            if lname != rname:
                lshare, rshare = self.attrs[lname].share, self.attrs[rname].share
                if lshare == rshare:
                    return 0
                return -1 if lshare < rshare else 1
        return 0

    def _common_depth(self, left: str, right: str) -> int:
        depth = 0
        for lname, rname in zip(self._path(left), self._path(right), strict=False):
            if lname != rname:
                break
            depth += 1
        return depth

    def compare_victim_queues(self, left: QueueInfo, right: QueueInfo, preemptor: QueueInfo) -> int:
        """Return negative when ``left``'s tasks are evicted first: the closer relative first."""
        ldepth = self._common_depth(left.name, preemptor.name)
        rdepth = self._common_depth(right.name, preemptor.name)
        if ldepth == rdepth:
            return 0
        return -1 if ldepth > rdepth else 1
