"""Deleting a node waits for any session binding to it, then collects its pods (pod GC).

``Pod.node`` has no database constraint (``spec.nodeName`` is a plain reference, and the check
cost every bind). What keeps a deleted node from keeping pods is this lock order: a session's
apply locks each target node's row before it binds (``cache.apply``), and a node's deletion
locks the same row before Django unbinds its pods (``on_delete=SET_NULL``, run after the
``pre_delete`` signals). Whichever comes second waits: a deletion that waited then unbinds the
pods the session just bound; a session that waited finds the node gone and binds nothing to it.

The pods still running or waiting on the node are then collected as Kubernetes' pod garbage
collector collects the pods of a node that no longer exists (``gcOrphaned``): each is marked
``Failed`` with the condition ``DisruptionTarget`` (reason ``DeletionByPodGC``, "PodGC: node no
longer exists") and deleted at once. A job's pod deleted so is an eviction (the pod kind's
eviction hooks, ``kube.registry.evicted``, which the jobs app registers): its job's controller
sees ``PodEvicted`` and the job's policies apply (RestartJob, AbortJob, ...), where before the job stayed Running with pods on no
node. Finished pods keep their record, bound to no node.

(Today the change stream's commit-order lock, ``kube.changes``, also makes the two wait for
each other; this lock keeps the rule where it is needed rather than on how watches are built.)
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import connection
from django.db.models.signals import pre_delete
from django.utils import timezone

from core.models import Node, Pod, PodPhase
from kube import registry

DISRUPTION_TARGET = "DisruptionTarget"
POD_GC_REASON = "DeletionByPodGC"
POD_GC_MESSAGE = "PodGC: node no longer exists"

__all__ = ["connect"]


def _lock_before_delete(sender: type[Node], instance: Node, **kwargs: Any) -> None:
    # The deletion's own transaction (Django's collector) holds the lock until it commits.
    # SQLite needs none: its one writer at a time already orders the two.
    if connection.vendor == "postgresql":
        list(Node.objects.select_for_update().filter(pk=instance.pk).values_list("pk"))
    collect_pods(instance)


def _stamp(now: dt.datetime) -> str:
    return now.isoformat(timespec="seconds").replace("+00:00", "Z")


def collect_pods(node: Node, now: dt.datetime | None = None) -> int:
    """Fail and delete the pods still Pending or Running on ``node``; return how many.

    Called inside the node's deletion transaction, before its row goes.
    """
    now = now or timezone.now()
    pods = list(
        Pod.objects.select_for_update()
        .filter(node_id=node.pk, phase__in=(PodPhase.PENDING, PodPhase.RUNNING))
        .order_by("pk")
    )
    for pod in pods:
        condition = {
            "type": DISRUPTION_TARGET,
            "status": "True",
            "reason": POD_GC_REASON,
            "message": POD_GC_MESSAGE,
            "lastProbeTime": None,
            "lastTransitionTime": _stamp(now),
        }
        others = [c for c in pod.conditions or () if c.get("type") != DISRUPTION_TARGET]
        pod.phase = PodPhase.FAILED
        pod.conditions = [*others, condition]
        pod.finish_time = pod.finish_time or now
        pod.save(update_fields=["phase", "conditions", "finish_time"])  # watchers see Failed
        registry.evicted(pod)
        pod.delete()
    return len(pods)


def connect() -> None:
    """Connect the lock to every deletion of a node (instance, queryset, admin, API)."""
    pre_delete.connect(_lock_before_delete, sender=Node, dispatch_uid="scheduler-node-lock")
