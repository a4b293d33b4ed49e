"""Finalizers, as kube-apiserver honours them: a delete waits until every finalizer is removed.

Deleting an object that has ``metadata.finalizers`` only marks it: ``deletionTimestamp`` is
set (with ``deletionGracePeriodSeconds: 0``) and watchers see it MODIFIED. The object stays,
Terminating, until clients remove its finalizers by update or patch; the write that leaves
none deletes it (DELETED). While it waits, no finalizer may be added and its spec may not
change: only metadata changes that let the deletion go on.

When the last finalizer goes, the kind may finish the deletion its own way (``Entry.finish``:
a namespace goes once it is empty); otherwise the row is deleted, the kind's eviction hooks
hear of it (a job's pod deleted at last) and the release hooks learn that an object held by
finalizers went (core: the last object held in a terminating namespace lets it finish).
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from kube import registry
from kube.status import Cause

__all__ = ["delete_or_finalize", "finish_if_released", "terminating_update_causes"]


def delete_or_finalize(instance: Any) -> bool:
    """Delete ``instance`` and return True, or mark it for deletion if finalizers hold it."""
    if getattr(instance, "finalizers", None):
        if instance.deletion_timestamp is None:
            instance.deletion_timestamp = timezone.now().replace(microsecond=0)
            instance.save(update_fields=["deletion_timestamp"])
        return False
    instance.delete()
    return True


def finish_if_released(instance: Any) -> bool:
    """Delete ``instance`` and return True when it is being deleted and no finalizer is left."""
    if getattr(instance, "deletion_timestamp", None) is None or instance.finalizers:
        return False
    entry = registry.entry_for_model(type(instance))
    if entry is not None and entry.finish is not None:
        return entry.finish(instance)  # a namespace: once empty
    registry.evicted(instance)  # a pod deleted through the API at last: an eviction
    instance.delete()
    registry.released(instance)  # the last object holding its namespace went
    return True


def _body(manifest: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in manifest.items() if key not in ("metadata", "status")}


def terminating_update_causes(
    before_finalizers: list[str], current: dict[str, Any], after: dict[str, Any]
) -> list[Cause]:
    """Return why an update of an object being deleted is refused (none when it may go on).

    ``current``/``after``: the object as stored and as it would be stored.
    """
    causes: list[Cause] = []
    added = [
        name for name in after["metadata"].get("finalizers", []) if name not in before_finalizers
    ]
    if added:
        causes.append(
            Cause(
                "metadata.finalizers",
                f"Forbidden: no new finalizers can be added if the object is being deleted, "
                f"found new finalizers {added!r}",
                "FieldValueForbidden",
            )
        )
    before_body, after_body = _body(current), _body(after)
    if before_body != after_body:
        changed = next(k for k in sorted({*before_body, *after_body})
                       if before_body.get(k) != after_body.get(k))  # fmt: skip
        causes.append(
            Cause(
                changed,
                "Forbidden: the object is being deleted: only its metadata (removing "
                "finalizers) may change",
                "FieldValueForbidden",
            )
        )
    return causes
