"""A queue as the scheduler sees it.

Volcano's counterpart: ``pkg/scheduler/api/queue_info.go``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from scheduler.engine.api.resource import Resource
from scheduler.engine.api.types import QueueState

__all__ = ["DEFAULT_QUEUE", "QueueInfo"]

DEFAULT_QUEUE = "default"


@dataclass(slots=True, eq=False)
class QueueInfo:
    """One Queue: weight, quotas (capability, deserved, guarantee), state and hierarchy."""

    name: str
    weight: int = 1
    capability: Resource | None = None
    deserved: Resource | None = None
    guarantee: Resource | None = None
    reclaimable: bool = True
    state: QueueState = QueueState.OPEN
    parent: str = ""
    priority: int = 0
    creation_timestamp: datetime | None = None
    annotations: dict[str, str] = field(default_factory=dict)

    @property
    def uid(self) -> str:
        """Return the queue's identity (its name: queues are cluster-scoped)."""
        return self.name

    @property
    def hierarchy(self) -> str:
        """Return the drf hierarchy path (annotation ``volcano.sh/hierarchy``)."""
        return self.annotations.get("volcano.sh/hierarchy", "")

    @property
    def hierarchy_weights(self) -> str:
        """Return the drf hierarchy weights (annotation ``volcano.sh/hierarchy-weights``)."""
        return self.annotations.get("volcano.sh/hierarchy-weights", "")

    def is_open(self) -> bool:
        """Return True when the queue accepts new work."""
        return self.state == QueueState.OPEN
