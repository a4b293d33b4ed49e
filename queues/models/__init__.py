"""The queues app's models: Queue and PodGroup (scheduling.volcano.sh/v1beta1)."""

from __future__ import annotations

from queues.models.pod_group import PodGroup, PodGroupPhase
from queues.models.queue import (
    PROTECTED_QUEUE_NAMES,
    DequeueStrategy,
    Queue,
    QueueAction,
    QueueProtectedError,
    QueueState,
)

__all__ = [
    "PROTECTED_QUEUE_NAMES",
    "DequeueStrategy",
    "PodGroup",
    "PodGroupPhase",
    "Queue",
    "QueueAction",
    "QueueProtectedError",
    "QueueState",
]
