"""The queues app's controllers: queue state (Open, Closing, Closed) and implicit PodGroups."""

from __future__ import annotations

from queues.controller.queue import (
    CLOSED_BY_PARENT,
    ROOT,
    ROOT_NOT_CLOSED,
    queue_command,
    queue_execute,
    reconcile_queues,
)

__all__ = [
    "CLOSED_BY_PARENT",
    "ROOT",
    "ROOT_NOT_CLOSED",
    "queue_command",
    "queue_execute",
    "reconcile_queues",
]
