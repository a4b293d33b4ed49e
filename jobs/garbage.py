"""Garbage collection of Commands whose owner is gone (Kubernetes' background propagation).

A Command is owned by its target (vcctl writes the owner reference to the job or queue it
acts on). When the owner is deleted its Commands go too, in the same transaction, so no
Command outlives what it was meant to act on. (Pods and PodGroups already go with their job
through foreign keys.)
"""

from __future__ import annotations

from typing import Any

from jobs.models import Command, TargetKind

__all__ = ["collect_commands"]


def collect_commands(sender: Any, instance: Any, **kwargs: Any) -> None:
    """``post_delete`` of a Job or Queue: delete the Commands it owned."""
    uid = getattr(instance, "uid", None)
    if uid is None:
        return
    kind = TargetKind.QUEUE if sender._meta.label_lower == "queues.queue" else TargetKind.JOB
    for command in Command.objects.filter(target_kind=kind, target_uid=uid):
        command.delete()  # one by one: each delete is a change event watchers see
