"""Writes to queues (HackSoft style: ``queue_<verb>(*, ...)``).

Opening and closing follow Volcano's queue controller: a queue opens at once;
a queue that still holds unfinished PodGroups goes to Closing (no new jobs, the
running ones drain) and to Closed only when none is left.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.utils import timezone

from jobs.models import CommandAction
from queues.admission import admit_queue, admit_queue_delete
from queues.controller import queue_execute
from queues.models import Queue

__all__ = ["queue_close", "queue_create", "queue_delete", "queue_open", "queue_update"]


def queue_open(*, queue: Queue) -> Queue:
    """Open ``queue`` to new jobs (and the children it closed), as an OpenQueue command does."""
    with transaction.atomic():
        queue_execute(queue, CommandAction.OPEN_QUEUE, timezone.now(), {})
    return queue


def queue_close(*, queue: Queue) -> Queue:
    """Close ``queue``: Closing while PodGroups remain in it, else Closed (CloseQueue)."""
    with transaction.atomic():
        queue_execute(queue, CommandAction.CLOSE_QUEUE, timezone.now(), {})
    return queue


def queue_create(*, manifest: Mapping[str, Any] | Queue) -> Queue:
    """Admit and store a new queue; ``AdmissionError`` names every bad field."""
    with transaction.atomic():
        queue: Queue = admit_queue(manifest).instance
        queue.uid = None
        queue.full_clean(validate_unique=False)
        queue.save()
    return queue


def queue_update(*, queue: Queue) -> Queue:
    """Admit the edited ``queue`` against its stored row and save it."""
    with transaction.atomic():
        old = Queue.objects.select_for_update().get(pk=queue.pk)
        admit_queue(queue, old=old)
        queue.save()
    return queue


def queue_delete(*, queue: Queue) -> None:
    """Delete ``queue`` unless Volcano forbids it (default, root, or it has child queues)."""
    with transaction.atomic():
        admit_queue_delete(queue)
        queue.delete()
