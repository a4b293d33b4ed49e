"""Writes to queues (HackSoft style: ``queue_<verb>(*, ...)``).

Opening and closing follow Volcano's queue controller: a queue opens at once;
a queue that still holds unfinished PodGroups goes to Closing (no new jobs, the
running ones drain) and to Closed only when none is left.
"""

from __future__ import annotations

from django.db import transaction

from jobs.models import PodGroup, PodGroupPhase
from queues.models import Queue, QueueState

__all__ = ["queue_close", "queue_open"]


def queue_open(*, queue: Queue) -> Queue:
    """Open ``queue`` to new jobs."""
    with transaction.atomic():
        queue.state = QueueState.OPEN
        queue.save(update_fields=["state"])
    return queue


def queue_close(*, queue: Queue) -> Queue:
    """Close ``queue``: Closing while unfinished PodGroups remain in it, else Closed."""
    with transaction.atomic():
        busy = (
            PodGroup.objects.filter(queue=queue.name)
            .exclude(phase=PodGroupPhase.COMPLETED)
            .exists()
        )
        queue.state = QueueState.CLOSING if busy else QueueState.CLOSED
        queue.save(update_fields=["state"])
    return queue
