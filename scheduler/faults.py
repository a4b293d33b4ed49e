"""Fault injection on the simulated cluster: fail or evict a pod, take a node down or up, cordon.

One function per fault (HackSoft's ``<entity>_<verb>``), re-exported by ``scheduler.services`` so
the admin, the API and ``manage.py fault`` all call the same code. Each write bumps the row's
resourceVersion (so a session that read the row before refuses to act on it) and records an
Event, as the kubelet and the node lifecycle controller do.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from jobs.models import Event, Pod
from scheduler.models import Node

__all__ = ["node_cordon", "node_down", "node_up", "pod_evict", "pod_fail"]

ACTIVE = ("Pending", "Running")
SOURCE = "fault-injection"


def _event(kind: str, namespace: str, name: str, reason: str, message: str, now: datetime) -> None:
    Event.objects.create(
        namespace=namespace or "default", involved_kind=kind, involved_namespace=namespace,
        involved_name=name, type="Warning", reason=reason, message=message, source=SOURCE,
        first_timestamp=now, last_timestamp=now,
    )  # fmt: skip


def pod_fail(
    *, pod: Pod, exit_code: int = 1, reason: str = "Error", now: datetime | None = None
) -> bool:
    """Make a live pod exit with ``exit_code`` now (Failed, or Succeeded for 0); False if not live."""
    now = now or timezone.now()
    with transaction.atomic():
        done = Pod.objects.filter(pk=pod.pk, phase__in=ACTIVE).update(
            phase="Succeeded" if exit_code == 0 else "Failed", reason=reason,
            message=f"exit code {exit_code} (injected)", exit_code=exit_code,
            finish_time=now, task_status="", resource_version=F("resource_version") + 1,
        )  # fmt: skip
        if done:
            _event("Pod", pod.namespace, pod.name, "Failed" if exit_code else "Completed",
                   f"container exited with code {exit_code} (injected)", now)  # fmt: skip
    return bool(done)


def pod_evict(
    *, pod: Pod, reason: str = "evicted by an operator", now: datetime | None = None
) -> bool:
    """Evict a live pod as the scheduler would (deleted, Releasing, reason Evicted)."""
    now = now or timezone.now()
    with transaction.atomic():
        done = Pod.objects.filter(
            pk=pod.pk, phase__in=ACTIVE, deletion_time__isnull=True
        ).update(
            deletion_time=now, task_status="Releasing", reason="Evicted", message=reason,
            resource_version=F("resource_version") + 1,
        )  # fmt: skip
        if done:
            _event("Pod", pod.namespace, pod.name, "Evict", reason, now)
    return bool(done)


def node_down(*, node: Node, reason: str = "KubeletStopped", now: datetime | None = None) -> int:
    """Mark ``node`` NotReady and fail its live pods; return how many pods failed."""
    now = now or timezone.now()
    with transaction.atomic():
        Node.objects.filter(pk=node.pk).update(
            ready=False, ready_reason=reason, ready_message="node taken down (injected)",
            ready_transition_time=now, resource_version=F("resource_version") + 1,
        )  # fmt: skip
        failed = Pod.objects.filter(node=node, phase__in=ACTIVE).update(
            phase="Failed", reason="NodeNotReady", message=f"node {node.name} is not ready",
            finish_time=now, task_status="", resource_version=F("resource_version") + 1,
        )  # fmt: skip
        _event("Node", "", node.name, "NodeNotReady", f"{reason}; {failed} pod(s) failed", now)
    node.refresh_from_db()
    return failed


def node_up(*, node: Node, now: datetime | None = None) -> None:
    """Mark ``node`` Ready again."""
    now = now or timezone.now()
    with transaction.atomic():
        Node.objects.filter(pk=node.pk).update(
            ready=True, ready_reason="KubeletReady", ready_message="", ready_transition_time=now,
            resource_version=F("resource_version") + 1,
        )  # fmt: skip
        _event("Node", "", node.name, "NodeReady", "node is ready", now)
    node.refresh_from_db()


def node_cordon(*, node: Node, unschedulable: bool = True) -> None:
    """Cordon (or uncordon) ``node``: no new pods are bound to it; running pods stay."""
    # save(), not update(): an operator's cordon is audited and published on the change
    # stream by the save signals (volcano_site.accounts.audit, volcano_site.kube.changes).
    node.refresh_from_db()
    node.unschedulable = unschedulable
    node.save(update_fields=["unschedulable"])
