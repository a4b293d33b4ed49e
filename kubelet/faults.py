"""Fault injection on the simulated cluster: fail or evict a pod, take a node down or up, cordon,
make a node refuse its binds.

One function per fault (HackSoft's ``<entity>_<verb>``), re-exported by ``scheduler.services`` so
the admin, the API and ``manage.py fault`` all call the same code. Each write bumps the row's
resourceVersion (so a session that read the row before refuses to act on it) and records an
Event, as the kubelet and the node lifecycle controller do.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from accounts.audit import audit_record
from core.models import Event, Node, Pod
from kube.changes import record_rows

__all__ = [
    "BIND_FAILURE",
    "NODE_FAULTS",
    "POD_FAULTS",
    "FaultRefusedError",
    "fault_inject",
    "node_bind_failure",
    "node_cordon",
    "node_down",
    "node_up",
    "pod_evict",
    "pod_fail",
]

ACTIVE = ("Pending", "Running")
SOURCE = "fault-injection"
# A node carrying this annotation refuses every bind (``scheduler.cache.binds.usable_nodes``):
# the value is the error its binds fail with. An annotation, so kubectl and the console show it.
BIND_FAILURE = "faults.volcano.sh/bind-failure"


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
            record_rows(Pod, [pod.pk])  # watchers, and the scheduler's row cache, hear of it
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
            record_rows(Pod, [pod.pk])  # watchers, and the scheduler's row cache, hear of it
            _event("Pod", pod.namespace, pod.name, "Evict", reason, now)
    return bool(done)


def _ready_state(node: Node) -> dict[str, Any]:
    return {"ready": node.ready, "readyReason": node.ready_reason}


def node_down(*, node: Node, reason: str = "KubeletStopped", now: datetime | None = None) -> int:
    """Mark ``node`` NotReady and fail its live pods; return how many pods failed.

    Audited as the node's ``down`` (an operator's act; the simulated kubelet's own failures
    have nobody acting and are not), and put on the change stream, as ``update()`` sends no
    signal: watchers and live pages hear of the node and of every pod it failed.
    """
    now = now or timezone.now()
    with transaction.atomic():
        node.refresh_from_db()
        before = _ready_state(node)
        Node.objects.filter(pk=node.pk).update(
            ready=False, ready_reason=reason, ready_message="node taken down (injected)",
            ready_transition_time=now, resource_version=F("resource_version") + 1,
        )  # fmt: skip
        live = list(Pod.objects.filter(node=node, phase__in=ACTIVE).values_list("pk", flat=True))
        failed = Pod.objects.filter(pk__in=live, phase__in=ACTIVE).update(
            phase="Failed", reason="NodeNotReady", message=f"node {node.name} is not ready",
            finish_time=now, task_status="", resource_version=F("resource_version") + 1,
        )  # fmt: skip
        _event("Node", "", node.name, "NodeNotReady", f"{reason}; {failed} pod(s) failed", now)
        record_rows(Node, [node.pk])
        record_rows(Pod, live)
        node.refresh_from_db()
        audit_record(action="down", kind="Node", name=node.name, before=before,
                     after={**_ready_state(node), "podsFailed": failed})  # fmt: skip
    return failed


def node_up(*, node: Node, now: datetime | None = None) -> None:
    """Mark ``node`` Ready again (audited as the node's ``up``; on the change stream)."""
    now = now or timezone.now()
    with transaction.atomic():
        node.refresh_from_db()
        before = _ready_state(node)
        Node.objects.filter(pk=node.pk).update(
            ready=True, ready_reason="KubeletReady", ready_message="", ready_transition_time=now,
            resource_version=F("resource_version") + 1,
        )  # fmt: skip
        _event("Node", "", node.name, "NodeReady", "node is ready", now)
        record_rows(Node, [node.pk])
        node.refresh_from_db()
        audit_record(action="up", kind="Node", name=node.name, before=before,
                     after=_ready_state(node))  # fmt: skip


def node_cordon(*, node: Node, unschedulable: bool = True) -> None:
    """Cordon (or uncordon) ``node``: no new pods are bound to it; running pods stay."""
    # save(), not update(): an operator's cordon is audited and published on the change
    # stream by the save signals (accounts.audit, kube.changes).
    node.refresh_from_db()
    node.unschedulable = unschedulable
    node.save(update_fields=["unschedulable"])


def node_bind_failure(
    *, node: Node, fail: bool = True, message: str = "bind refused (injected)",
    now: datetime | None = None,
) -> None:  # fmt: skip
    """Make every bind to ``node`` fail (``fail``) or succeed again, as a broken kubelet would.

    The scheduler keeps choosing the node; each bind there fails (``scheduler.cache.binds``):
    the pod shows ``PodScheduled=False`` reason ``SchedulerError`` and the next session
    retries it, as Volcano's cache resyncs a task whose bind failed.
    """
    now = now or timezone.now()
    with transaction.atomic():
        node = Node.objects.select_for_update().get(pk=node.pk)
        if fail:
            node.annotations = {**node.annotations, BIND_FAILURE: message}
        else:
            node.annotations = {k: v for k, v in node.annotations.items() if k != BIND_FAILURE}
        node.save(update_fields=["annotations"])
        reason = "FailedBinding" if fail else "BindingRecovered"
        _event("Node", "", node.name, reason, message if fail else "binds succeed again", now)


NODE_FAULTS = ("NodeDown", "NodeUp", "Cordon", "Uncordon", "BindFailure", "BindRecovery")
POD_FAULTS = ("PodFail", "PodEvict")


class FaultRefusedError(Exception):
    """A fault that cannot be injected: ``field`` names the bad part of the spec."""

    def __init__(self, field: str, message: str, *, conflict: bool = False) -> None:
        super().__init__(message)
        self.field, self.message, self.conflict = field, message, conflict


def _text(spec: Mapping[str, Any], key: str, default: str) -> str:
    value = spec.get(key, default)
    if not isinstance(value, str) or not value.strip():
        raise FaultRefusedError(f"spec.{key}", f"spec.{key} must be a non-empty string")
    return value


def fault_inject(
    *, spec: Mapping[str, Any], node: Node | None = None, pod: Pod | None = None
) -> dict[str, Any]:
    """Inject the fault ``spec["type"]`` into ``node`` or ``pod``; return what it did.

    The one entry point of the API (and so of the console): it checks the spec, calls the
    fault's function and writes an audit entry naming the operator, the target and the spec.
    Raises ``FaultRefusedError`` naming the field (or, ``conflict``, a pod no longer live).
    """
    kind = spec.get("type")
    allowed = NODE_FAULTS if node is not None else POD_FAULTS
    if kind not in allowed:
        raise FaultRefusedError("spec.type", f"spec.type must be one of {', '.join(allowed)}")
    result: dict[str, Any] = {"type": kind}
    with transaction.atomic():
        if pod is not None:
            target = f"pods/{pod.namespace}/{pod.name}"
            if kind == "PodFail":
                code = spec.get("exitCode", 1)
                if not isinstance(code, int) or isinstance(code, bool) or not 0 <= code <= 255:
                    raise FaultRefusedError("spec.exitCode", "spec.exitCode must be 0-255")
                done = pod_fail(pod=pod, exit_code=code, reason=_text(spec, "reason", "Error"))
            else:
                done = pod_evict(pod=pod, reason=_text(spec, "reason", "evicted by an operator"))
            if not done:
                raise FaultRefusedError("metadata.name", f"pod {pod.name} is not running or pending",
                                        conflict=True)  # fmt: skip
        else:
            assert node is not None
            target = f"nodes/{node.name}"
            if kind == "NodeDown":
                result["podsFailed"] = node_down(
                    node=node, reason=_text(spec, "reason", "KubeletStopped")
                )
            elif kind == "NodeUp":
                node_up(node=node)
            elif kind in ("Cordon", "Uncordon"):
                node_cordon(node=node, unschedulable=kind == "Cordon")
            else:
                message = _text(spec, "message", "bind refused (injected)")
                node_bind_failure(node=node, fail=kind == "BindFailure", message=message)
        audit_record(action="inject", kind="Fault", name=target, after=dict(spec))
    return result
