"""A queue as the scheduler sees it.

Volcano's counterpart: ``pkg/scheduler/api/queue_info.go``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from scheduler.engine.api.resource import Resource
from scheduler.engine.api.types import QueueState

__all__ = ["DEFAULT_QUEUE", "NodeGroupTerms", "QueueAffinity", "QueueInfo"]

DEFAULT_QUEUE = "default"


@dataclass(slots=True, frozen=True)
class NodeGroupTerms:
    """One side of a queue's node-group (anti-)affinity: node-group names, in the order given.

    ``required`` / ``preferred`` are ``requiredDuringSchedulingIgnoredDuringExecution`` /
    ``preferredDuringSchedulingIgnoredDuringExecution``; the order of ``preferred`` matters to
    nodegroup's ``enablePreferredOrder``.
    """

    required: tuple[str, ...] = ()
    preferred: tuple[str, ...] = ()


@dataclass(slots=True, frozen=True)
class QueueAffinity:
    """A Queue's ``spec.affinity`` (Volcano's ``Affinity``), read by the nodegroup plugin.

    A present but empty ``affinity: {}`` is not None: nodegroup's hierarchy inherits only into
    queues whose ``spec.affinity`` is absent.
    """

    node_group_affinity: NodeGroupTerms | None = None
    node_group_anti_affinity: NodeGroupTerms | None = None


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
    affinity: QueueAffinity | None = None  # spec.affinity (node groups)

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
