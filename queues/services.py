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
from queues.manifests import QueueKind
from queues.models import Queue

__all__ = [
    "QueueChangedError",
    "queue_close",
    "queue_create",
    "queue_delete",
    "queue_edit",
    "queue_open",
    "queue_update",
]


class QueueChangedError(Exception):
    """The queue was written by someone else since the editor read it (resourceVersion)."""

    def __init__(self, name: str, expected: int, stored: int) -> None:
        super().__init__(
            f"queue {name} changed meanwhile (resourceVersion {expected} → {stored}): "
            "review the new figures and save again"
        )
        self.name, self.expected, self.stored = name, expected, stored


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


def queue_edit(*, name: str, manifest: Mapping[str, Any], resource_version: int) -> Queue:
    """Apply the spec of ``manifest`` to queue ``name`` if it is still at ``resource_version``.

    The console's editor previews a change against the version it read; saving anything else
    than what was previewed would be wrong, so a queue written meanwhile refuses the save
    (``QueueChangedError``) instead of overwriting. Status and state are kept: a queue opens
    and closes only through its actions.
    """
    with transaction.atomic():
        queue = Queue.objects.select_for_update().get(name=name)
        if queue.resource_version != resource_version:
            raise QueueChangedError(name, resource_version, queue.resource_version)
        edited: Queue = QueueKind().load(manifest).instance
        old = Queue.objects.get(pk=queue.pk)
        for field in QueueKind.spec_fields:
            setattr(queue, field, getattr(edited, field))
        meta = manifest.get("metadata") or {}
        for field in ("labels", "annotations"):  # the form sends none: keep what is stored
            if field in meta:
                setattr(queue, field, getattr(edited, field))
        admit_queue(queue, old=old)
        queue.save()
    return queue
