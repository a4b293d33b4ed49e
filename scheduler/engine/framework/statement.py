"""Statement: a job's tentative operations, committed or discarded together (gang semantics).

Volcano's counterpart: ``pkg/scheduler/framework/statement.go``. Operations change the session at
once (task status, node arrays, plugin accounting through event handlers) so later decisions in
the session see them; ``discard`` undoes them in reverse order (restoring the node arrays), and
``commit`` turns them into decisions (allocations become binds, evictions become evictions;
pipelines have no external effect).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from scheduler.engine.api.node_info import NodeInfo
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import TaskStatus

if TYPE_CHECKING:
    from scheduler.engine.framework.session import Session

__all__ = ["Operation", "Statement"]


class _Kind(enum.Enum):
    EVICT = "evict"
    PIPELINE = "pipeline"
    ALLOCATE = "allocate"


@dataclass(slots=True)
class Operation:
    """One recorded operation; ``previous`` is the task's status before an eviction."""

    kind: _Kind
    task: TaskInfo
    node: str
    reason: str = ""
    preemptor: str = ""
    previous: TaskStatus = TaskStatus.PENDING
    plugin: str = ""  # the plugin that named an evicted task, when one did


class Statement:
    """An ordered list of operations on one session."""

    __slots__ = ("operations", "ssn")

    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn
        self.operations: list[Operation] = []

    def evict(self, task: TaskInfo, reason: str, *, preemptor: str = "", plugin: str = "") -> None:
        """Mark ``task`` Releasing (its resources become future-idle on its node)."""
        previous = task.status
        node = task.node_name
        self.ssn.evict_task(task)
        self.operations.append(
            Operation(_Kind.EVICT, task, node, reason, preemptor, previous, plugin)
        )

    def pipeline(self, task: TaskInfo, node: NodeInfo) -> None:
        """Put ``task`` Pipelined on ``node`` (waiting for resources being released)."""
        self.ssn.place_task(task, node, TaskStatus.PIPELINED)
        self.operations.append(Operation(_Kind.PIPELINE, task, node.name))

    def allocate(self, task: TaskInfo, node: NodeInfo) -> None:
        """Put ``task`` Allocated on ``node`` (bound on commit)."""
        self.ssn.place_task(task, node, TaskStatus.ALLOCATED)
        self.operations.append(Operation(_Kind.ALLOCATE, task, node.name))

    def discard(self) -> None:
        """Undo every operation, newest first."""
        for op in reversed(self.operations):
            if op.kind is _Kind.EVICT:
                self.ssn.unevict_task(op.task, op.previous)
            else:
                self.ssn.unplace_task(op.task)
        self.operations.clear()

    def commit(self) -> None:
        """Turn the operations into decisions, oldest first (an evicting one is a transaction)."""
        evicting = next((op.reason for op in self.operations if op.kind is _Kind.EVICT), None)
        if evicting is not None:
            self.ssn.decisions.eviction_transactions.append(evicting)
        for op in self.operations:
            if op.kind is _Kind.EVICT:
                self.ssn.record_eviction(op.task, op.node, op.reason, op.preemptor, op.plugin)
            elif op.kind is _Kind.ALLOCATE:
                self.ssn.bind_task(op.task)
        self.operations.clear()

    def merge(self, other: Statement) -> None:
        """Move ``other``'s operations to the end of this statement."""
        self.operations.extend(other.operations)
        other.operations.clear()

    def __len__(self) -> int:
        return len(self.operations)
