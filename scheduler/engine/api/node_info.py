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

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
import numpy.typing as npt

from scheduler.engine.api.numa import NumatopoInfo
from scheduler.engine.api.resource import PODS, Resource, ResourceIndex, Vector
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import TaskStatus

__all__ = ["NODE_METRICS_PERIOD", "NO_USAGE", "NodeArrays", "NodeInfo", "NodeUsage", "Taint"]

# The averaging period Volcano's metrics sources fill and its usage plugin reads.
NODE_METRICS_PERIOD = "10m"


class NodeArrays:
    """Per-node accounting of one snapshot as ``(nodes, resources)`` int64 arrays.

    Used, Idle and FutureIdle (with Releasing and Pipelined) are the planes of one stacked
    array, so that placing a running task changes three rows in one in-place addition (the
    request with its signs, made once per request vector) rather than three: the accounting
    runs once per placed pod. Each attribute is a view of its plane, read as before.
    """

    __slots__ = (
        "_deltas",
        "_stack",
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

    # The planes of ``_stack``: the first three are what a running task moves.
    _USED, _IDLE, _FUTURE_IDLE, _RELEASING, _PIPELINED = range(5)

    def __init__(self, index: ResourceIndex, allocatable: list[Resource]) -> None:
        self.index = index
        n, r = len(allocatable), len(index)
        self.allocatable = np.zeros((n, r), dtype=np.int64)
        for i, res in enumerate(allocatable):
            self.allocatable[i] = index.vector(res)
        self._stack = np.zeros((5, n, r), dtype=np.int64)
        self._stack[self._IDLE] = self.allocatable
        self._stack[self._FUTURE_IDLE] = self.allocatable
        self._views()
        self.changes: list[int] = []
        self.epoch = 0

    def _views(self) -> None:
        stack = self._stack
        self.used = stack[self._USED]
        self.idle = stack[self._IDLE]
        self.future_idle = stack[self._FUTURE_IDLE]
        self.releasing = stack[self._RELEASING]
        self.pipelined = stack[self._PIPELINED]
        # request vector id -> (the vector, its (3, r) delta: +used, -idle, -future idle)
        self._deltas: dict[int, tuple[Vector, npt.NDArray[np.int64]]] = {}

    def __deepcopy__(self, memo: dict[int, object]) -> NodeArrays:
        """Copy the stack once and view it again (a plain deep copy would copy each view
        apart from the stack, and the copies would stop moving together)."""
        clone = NodeArrays.__new__(NodeArrays)
        memo[id(self)] = clone
        clone.index = copy.deepcopy(self.index, memo)
        clone.allocatable = self.allocatable.copy()
        clone._stack = self._stack.copy()
        clone._views()
        clone.changes = list(self.changes)
        clone.epoch = self.epoch
        return clone

    def _delta(self, vec: Vector) -> npt.NDArray[np.int64]:
        found = self._deltas.get(id(vec))
        if found is None or found[0] is not vec:
            delta = np.empty((3, len(vec)), dtype=np.int64)
            delta[0] = vec
            delta[1] = -vec
            delta[2] = -vec
            found = self._deltas[id(vec)] = (vec, delta)
        return found[1]

    def add(self, row: int, vec: Vector, status: TaskStatus) -> None:
        """Account a task of ``status`` requesting ``vec`` on node ``row``."""
        if status == TaskStatus.PIPELINED:
            pipelined = self.pipelined[row]
            pipelined += vec
            future_idle = self.future_idle[row]
            future_idle -= vec
        elif status == TaskStatus.RELEASING:
            used = self.used[row]
            used += vec
            idle = self.idle[row]
            idle -= vec
            releasing = self.releasing[row]
            releasing += vec
        else:  # used, idle and future idle of the row: one addition over the three planes
            planes = self._stack[:3, row]
            planes += self._delta(vec)
        self.changes.append(row)

    def remove(self, row: int, vec: Vector, status: TaskStatus) -> None:
        """Undo ``add(row, vec, status)``."""
        if status == TaskStatus.PIPELINED:
            self.pipelined[row] -= vec
            self.future_idle[row] += vec
        elif status == TaskStatus.RELEASING:
            self.used[row] -= vec
            self.idle[row] += vec
            self.releasing[row] -= vec
        else:
            planes = self._stack[:3, row]
            planes -= self._delta(vec)
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
