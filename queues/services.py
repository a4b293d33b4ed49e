"""Writes to queues (HackSoft style: ``queue_<verb>(*, ...)``).

Opening and closing follow Volcano's queue controller: a queue opens at once;
a queue that still holds unfinished PodGroups goes to Closing (no new jobs, the
running ones drain) and to Closed only when none is left.

A queue is created and its spec changed through the API server's own write (``kube.store``),
whoever asks: admission, resourceVersion and generation, the audit log and the change stream
are the same for the console's editor and kubectl.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.utils import timezone

from kube.admission_causes import Causes
from kube.render import render
from kube.store import object_create, object_replace
from queues.admission import ROOT, admit_queue_delete
from queues.api.resources import QUEUES
from queues.controller import ROOT_NOT_CLOSED, queue_execute
from queues.manifests import QueueKind
from queues.models import Queue, QueueAction

DEFAULT = "default"

__all__ = [
    "QueueChangedError",
    "queue_close",
    "queue_create",
    "queue_delete",
    "queue_edit",
    "queue_ensure_builtin",
    "queue_open",
    "spec_fingerprint",
]


class QueueChangedError(Exception):
    """The queue was written by someone else since the editor read it (resourceVersion)."""

    def __init__(self, name: str, expected: int, stored: int) -> None:
        super().__init__(
            f"queue {name} was changed by someone else meanwhile (resourceVersion {expected} → "
            f"{stored}): nothing was saved; reload the editor to see the new spec"
        )
        self.name, self.expected, self.stored = name, expected, stored


def queue_ensure_builtin() -> list[str]:
    """Create ``root`` and ``default`` if they are missing; return the names created.

    Volcano's scheduler does this at start-up (``newDefaultAndRootQueue``): root (weight 1, not
    reclaimable) is the parent of every queue, default (weight 1, reclaimable) takes jobs that
    name no queue. The migrations create both; this repairs a database restored without them.
    """
    made = []
    for name, reclaimable in ((ROOT, False), (DEFAULT, True)):
        _queue, created = Queue.objects.get_or_create(
            name=name, defaults={"weight": 1, "reclaimable": reclaimable}
        )
        if created:
            made.append(name)
    return made


def queue_open(*, queue: Queue) -> Queue:
    """Open ``queue`` to new jobs (and the children it closed), as an OpenQueue command does."""
    with transaction.atomic():
        queue_execute(queue, QueueAction.OPEN_QUEUE, timezone.now(), {})
    return queue


def queue_close(*, queue: Queue) -> Queue:
    """Close ``queue``: Closing while PodGroups remain in it, else Closed (CloseQueue).

    Raises ``AdmissionError`` for ``root``, which is never closed.
    """
    if queue.name == ROOT:
        causes = Causes()
        causes.forbidden("status.state", ROOT_NOT_CLOSED)
        causes.raise_if_any(kind="Queue", name=queue.name)
    with transaction.atomic():
        queue_execute(queue, QueueAction.CLOSE_QUEUE, timezone.now(), {})
    return queue


def queue_create(*, manifest: Mapping[str, Any]) -> Queue:
    """Create the queue of ``manifest`` as the API does.

    Raises ``KubeError``: 422 naming every field admission refuses, 409 when the name is
    taken; then nothing is stored.
    """
    created = object_create(QUEUES, manifest, namespace=None, dry_run=False)
    return Queue.objects.get(name=created["metadata"]["name"])


def queue_delete(*, queue: Queue) -> None:
    """Delete ``queue`` unless Volcano forbids it (default, root, or it has child queues)."""
    with transaction.atomic():
        admit_queue_delete(queue)
        queue.delete()


def spec_fingerprint(queue: Queue) -> str:
    """Return a digest of the queue's spec (what an edit and its preview are based on)."""
    spec = {f: getattr(queue, f) for f in QueueKind.spec_fields}
    spec["labels"], spec["annotations"] = queue.labels, queue.annotations
    text = json.dumps(spec, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def queue_edit(
    *, name: str, manifest: Mapping[str, Any], resource_version: int, spec: str = ""
) -> Queue:
    """Apply the spec of ``manifest`` to queue ``name`` if nobody changed it since it was read.

    The console's editor previews a change against the queue it read; saving over someone
    else's change would save something that was never previewed, so that refuses
    (``QueueChangedError``). The controllers write the queue's status (PodGroup counts,
    allocated) every few seconds and each write moves the resourceVersion, as in Kubernetes;
    so when the resourceVersion moved, ``spec`` (``spec_fingerprint`` of the queue as read)
    tells a status-only write, which does not touch what was previewed, from a spec change.
    Without ``spec`` any move refuses. Status and state are kept: a queue opens and closes
    only through its actions. Admission refusing the spec raises ``KubeError`` (422).
    """
    with transaction.atomic():
        queue = Queue.objects.select_for_update().get(name=name)
        moved = queue.resource_version != resource_version
        if moved and (not spec or spec != spec_fingerprint(queue)):
            raise QueueChangedError(name, resource_version, queue.resource_version)
        # The stored queue as the API serves it, with the edited spec: a replace, as kubectl's.
        document = render(QUEUES, queue)
        document["spec"] = dict(manifest.get("spec") or {})
        meta = manifest.get("metadata") or {}
        for key in ("labels", "annotations"):  # the form sends none: keep what is stored
            if key in meta:
                document["metadata"][key] = meta[key]
        object_replace(QUEUES, queue, document, dry_run=False)
    queue.refresh_from_db()
    return queue
