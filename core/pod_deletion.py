"""Graceful pod deletion, as the API server does it: mark the pod, let the kubelet stop it.

Deleting a pod that runs on a node (bound, Pending or Running) does not remove it: its
``deletionTimestamp`` is set (``deletion_time`` here, the grace period beside it) and it stays
Running, terminating, until its containers exit (the simulated kubelet, ``kubelet.runtime``)
or its grace period runs out. Its job's controller sees the mark as ``PodEvicted`` and removes
the row once the pod stopped; the scheduler holds the pod as Releasing meanwhile (its node's
resources stay taken), as Volcano's cache does for a pod with a deletionTimestamp. A pod not
on a node, already finished, held by finalizers, or deleted with ``gracePeriodSeconds: 0`` is
deleted at once, as before.
"""

from __future__ import annotations

from django.db.models import F
from django.utils import timezone

from core.container_lifecycle import grace_seconds
from core.models import Pod, PodPhase, TaskStatus
from kube.changes import record_rows

__all__ = ["pod_delete_gracefully"]


def pod_delete_gracefully(pod: Pod, grace_period: int | None) -> bool:
    """Mark ``pod`` for a graceful deletion and return True, or False to delete it now.

    A pod already terminating stays as it is (True): a second delete changes nothing.
    """
    if pod.finalizers or grace_period == 0:
        return False
    if pod.node_id is None or pod.phase not in (PodPhase.PENDING, PodPhase.RUNNING):
        return False
    if pod.deletion_time is not None:
        return True
    now = timezone.now()
    grace = grace_seconds(pod.spec, grace_period)
    Pod.objects.filter(pk=pod.pk).update(
        deletion_time=now,
        deletion_grace_seconds=grace,
        task_status=TaskStatus.RELEASING,
        resource_version=F("resource_version") + 1,
    )
    record_rows(Pod, [pod.pk])
    pod.refresh_from_db()
    return True
