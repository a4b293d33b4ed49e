"""Nodes and their accounting, kept in NumPy arrays for the whole snapshot.

Volcano's counterpart: ``pkg/scheduler/api/node_info.go``. Volcano keeps Idle / Used / Releasing /
Pipelined as per-node Resource objects; here they are rows of ``NodeArrays`` (nodes x resources,
int64 milli-units, columns fixed by the snapshot's ``ResourceIndex``) so that "which nodes can hold
this request" is one vectorised comparison. ``NodeInfo`` reads its row back as ``Resource`` values
for the code that is not hot. Every change of a row is appended to ``changes`` (and ``epoch`` is
bumped to invalidate everything): caches keyed by task template remember how far into the log they
have read and recompute only the rows changed since.

FutureIdle = Idle + Releasing - Pipelined, as in Volcano.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from scheduler.engine.api.numa import NumatopoInfo
from scheduler.engine.api.resource import PODS, Resource, ResourceIndex, Vector
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import TaskStatus

__all__ = ["NODE_METRICS_PERIOD", "NO_USAGE", "NodeArrays", "NodeInfo", "NodeUsage", "Taint"]

# The averaging period Volcano's metrics sources fill and its usage plugin reads.
NODE_METRICS_PERIOD = "10m"


class NodeArrays:
    """Per-node accounting of one snapshot as ``(nodes, resources)`` int64 arrays."""

    __slots__ = (
        "allocatable",
        "changes",
        "epoch",
        "future_idle",
        "idle",
        "index",
        "pipelined",
        "releasing",
        "used",
    )

    def __init__(self, index: ResourceIndex, allocatable: list[Resource]) -> None:
        self.index = index
        n, r = len(allocatable), len(index)
        self.allocatable = np.zeros((n, r), dtype=np.int64)
        for i, res in enumerate(allocatable):
            self.allocatable[i] = index.vector(res)
        self.used = np.zeros((n, r), dtype=np.int64)
        self.releasing = np.zeros((n, r), dtype=np.int64)
        self.pipelined = np.zeros((n, r), dtype=np.int64)
        self.idle = self.allocatable.copy()
        self.future_idle = self.allocatable.copy()
        self.changes: list[int] = []
        self.epoch = 0

    def add(self, row: int, vec: Vector, status: TaskStatus) -> None:
        """Account a task of ``status`` requesting ``vec`` on node ``row``."""
        # In place on each row's view: ``a[row] += vec`` would also copy the row back onto itself
        # (once per placed pod, three rows).
        if status == TaskStatus.PIPELINED:
            pipelined = self.pipelined[row]
            pipelined += vec
            future_idle = self.future_idle[row]
            future_idle -= vec
        else:
            used = self.used[row]
            used += vec
            idle = self.idle[row]
            idle -= vec
            if status == TaskStatus.RELEASING:
                releasing = self.releasing[row]
                releasing += vec
            else:
                future_idle = self.future_idle[row]
                future_idle -= vec
        self.changes.append(row)

    def remove(self, row: int, vec: Vector, status: TaskStatus) -> None:
        """Undo ``add(row, vec, status)``."""
        if status == TaskStatus.PIPELINED:
            self.pipelined[row] -= vec
            self.future_idle[row] += vec
        else:
            self.used[row] -= vec
            self.idle[row] += vec
            if status == TaskStatus.RELEASING:
                self.releasing[row] -= vec
            else:
                self.future_idle[row] += vec
        self.changes.append(row)


@dataclass(slots=True, frozen=True)
class Taint:
    """A node taint; ``effect`` is NoSchedule, PreferNoSchedule or NoExecute."""

    key: str
    value: str = ""
    effect: str = "NoSchedule"


@dataclass(slots=True, frozen=True)
class NodeUsage:
    """What the metrics source last said a node uses (Volcano's ``api.NodeUsage``).

    Usage is what the node's containers really consume, which may be more or less than their
    requests: cpu and memory in percent of the node's capacity (0-100), averaged over a period
    (keyed by period, e.g. ``"10m"``), and when it was measured. ``metrics_time`` None means no
    metrics were ever collected (Volcano's zero time); the usage plugin then ignores the node.
    """

    metrics_time: datetime | None = None
    cpu_usage_avg: Mapping[str, float] = field(default_factory=dict)
    mem_usage_avg: Mapping[str, float] = field(default_factory=dict)


NO_USAGE = NodeUsage()


@dataclass(slots=True, eq=False)
class NodeInfo:
    """One Ready node. ``index`` is its row in the snapshot's ``NodeArrays`` (nodes sorted by name)."""

    name: str
    allocatable: Resource
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False
    tasks: dict[str, TaskInfo] = field(default_factory=dict)
    index: int = -1
    arrays: NodeArrays | None = None
    resource_usage: NodeUsage = NO_USAGE
    # ``status.capacity`` when the node reports it (gpushare registers its cards there).
    capacity: Resource | None = None
    # The node's ``nodeinfo.volcano.sh/v1alpha1`` Numatopology, when published (numa-aware).
    numatopology: NumatopoInfo | None = None

    def _row(self, matrix_name: str) -> Resource:
        arrays = self._attached()
        matrix: Vector = getattr(arrays, matrix_name)
        return arrays.index.resource(matrix[self.index])

    def _attached(self) -> NodeArrays:
        if self.arrays is None:
            raise RuntimeError(f"node {self.name} is not part of a ClusterInfo yet")
        return self.arrays

    @property
    def idle(self) -> Resource:
        """Return allocatable minus used."""
        return self._row("idle")

    @property
    def used(self) -> Resource:
        """Return the requests of the tasks on the node (Releasing included)."""
        return self._row("used")

    @property
    def releasing(self) -> Resource:
        """Return the requests of the node's Releasing tasks."""
        return self._row("releasing")

    @property
    def pipelined(self) -> Resource:
        """Return the requests of tasks pipelined onto the node."""
        return self._row("pipelined")

    @property
    def future_idle(self) -> Resource:
        """Return Idle + Releasing - Pipelined."""
        return self._row("future_idle")

    @property
    def max_task_num(self) -> int:
        """Return how many pods the node may hold (allocatable ``pods``)."""
        return self.allocatable.get(PODS) // 1000

    def add_task(self, task: TaskInfo) -> None:
        """Place ``task`` on this node, accounting it under its current status."""
        if task.resreq_vec is None:
            raise RuntimeError(f"task {task.uid} has no request row: build it with ClusterInfo")
        task.node_name = self.name
        self.tasks[task.uid] = task
        arrays = self.arrays  # (``_attached()``, inlined: once per placed pod)
        if arrays is None:
            raise RuntimeError(f"node {self.name} is not part of a ClusterInfo yet")
        arrays.add(self.index, task.resreq_vec, task.status)

    def remove_task(self, task: TaskInfo) -> None:
        """Take ``task`` off this node (its status must be the one it was added with)."""
        if self.tasks.pop(task.uid, None) is None:
            return
        assert task.resreq_vec is not None
        self._attached().remove(self.index, task.resreq_vec, task.status)

    def __repr__(self) -> str:
        return f"NodeInfo({self.name})"
