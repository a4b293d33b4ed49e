"""Enumerations and small value types shared by the snapshot, the session and the plugins.

Volcano's counterpart: ``pkg/scheduler/api/types.go`` and ``pkg/scheduler/api/unschedule_info.go``.
Statuses and phases are ``StrEnum`` with Volcano's spelling so they print and serialise as Volcano
shows them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = [
    "ABSTAIN",
    "ALLOCATED_STATUSES",
    "PERMIT",
    "REJECT",
    "FitCode",
    "PodGroupCondition",
    "PodGroupPhase",
    "PredicateStatus",
    "QueueState",
    "TaskStatus",
    "ValidateResult",
]


class TaskStatus(enum.StrEnum):
    """Where a task (pod) stands, as Volcano's ``TaskStatus`` names it."""

    PENDING = "Pending"
    ALLOCATED = "Allocated"
    PIPELINED = "Pipelined"
    BINDING = "Binding"
    BOUND = "Bound"
    RUNNING = "Running"
    RELEASING = "Releasing"
    SUCCEEDED = "Succeeded"
    FAILED = "Failed"
    UNKNOWN = "Unknown"


# Volcano's AllocatedStatus(): the task holds node resources that count as "given".
ALLOCATED_STATUSES = frozenset(
    {TaskStatus.BOUND, TaskStatus.BINDING, TaskStatus.RUNNING, TaskStatus.ALLOCATED}
)


class PodGroupPhase(enum.StrEnum):
    """A PodGroup's ``status.phase``."""

    PENDING = "Pending"
    INQUEUE = "Inqueue"
    RUNNING = "Running"
    UNKNOWN = "Unknown"
    COMPLETED = "Completed"


class QueueState(enum.StrEnum):
    """A Queue's ``status.state``."""

    OPEN = "Open"
    CLOSED = "Closed"
    CLOSING = "Closing"
    UNKNOWN = "Unknown"


# Votes (JobEnqueueable, JobPipelined): Volcano's util.Permit / Abstain / Reject.
PERMIT = 1
ABSTAIN = 0
REJECT = -1


class FitCode(enum.StrEnum):
    """kube-scheduler status codes a predicate answers with."""

    UNSCHEDULABLE = "Unschedulable"
    UNSCHEDULABLE_AND_UNRESOLVABLE = "UnschedulableAndUnresolvable"
    WAIT = "Wait"
    SKIP = "Skip"
    ERROR = "Error"


@dataclass(slots=True, frozen=True)
class PredicateStatus:
    """Why a task does not fit a node (a predicate returns ``None`` when it fits)."""

    reason: str
    code: FitCode = FitCode.UNSCHEDULABLE
    plugin: str = ""

    @property
    def resolvable_by_eviction(self) -> bool:
        """Return True when evicting pods could make the node fit (preempt's predicate)."""
        return self.code not in (FitCode.UNSCHEDULABLE_AND_UNRESOLVABLE, FitCode.WAIT)


@dataclass(slots=True, frozen=True)
class ValidateResult:
    """A JobValid refusal: the job is skipped by the actions and the reason is reported."""

    reason: str
    message: str


@dataclass(slots=True)
class PodGroupCondition:
    """One PodGroup status condition (``Unschedulable``, ``Scheduled``)."""

    type: str
    status: str
    reason: str = ""
    message: str = ""
    transition_id: str = ""  # the session that stamped it
