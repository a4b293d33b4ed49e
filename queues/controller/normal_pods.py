"""Volcano's PodGroup controller: a PodGroup for every Volcano-scheduled pod that has none.

Volcano's counterpart: ``pkg/controllers/podgroup`` (``createNormalPodPGIfNotExist``). A pod
outside any VolcanoJob (a bare pod, a Deployment's or StatefulSet's pod) whose ``schedulerName``
is Volcano's and which names no PodGroup gets one, so the scheduler gang-schedules it as a group
of one. Like Volcano's controller, the group is

- named ``podgroup-<uid>``: the uid of the pod's controller owner when it has one (so every pod of
  a ReplicaSet shares one group), else the pod's own;
- owned by the pod's owners (the controller's), else by the pod itself, so it is garbage
  collected with its owner (``kube.garbage`` follows the reference);
- in the queue the pod's ``scheduling.volcano.sh/queue-name`` annotation names, else ``default``;
- minMember 1, minResources the pod's requests, priorityClassName the pod's.

The pod is then linked to the group, which is what its ``scheduling.k8s.io/group-name``
annotation shows. A pod that already names a group is left alone, as Volcano's controller skips
a pod whose annotation is set; if that group did not exist when the pod was created, the pod is
linked to it once it does (Volcano's scheduler joins pods to groups by that annotation).
Level-triggered: each pass looks for such pods (indexed queries) and does nothing when there
are none.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from django.db import transaction

from core.events import record_event
from core.models import EventType, Pod, PodPhase
from queues.models import PodGroup, Queue, QueueState

__all__ = ["GROUP_NAME", "PODGROUP_PREFIX", "QUEUE_NAME", "pod_group_name", "reconcile_normal_pods"]

logger = logging.getLogger(__name__)

PODGROUP_PREFIX = "podgroup-"
GROUP_NAME = "scheduling.k8s.io/group-name"
QUEUE_NAME = "scheduling.volcano.sh/queue-name"
VOLCANO = "volcano"
DEFAULT_QUEUE = "default"


def _controller_ref(pod: Pod) -> dict[str, Any] | None:
    for ref in pod.owner_references or ():
        if isinstance(ref, dict) and ref.get("controller") and ref.get("uid"):
            return ref
    return None


def pod_group_name(pod: Pod) -> str:
    """Return the implicit PodGroup's name: ``podgroup-`` + the controller owner's or pod's uid."""
    owner = _controller_ref(pod)
    return PODGROUP_PREFIX + (str(owner["uid"]) if owner is not None else str(pod.uid))


def _owner_references(pod: Pod) -> list[dict[str, Any]]:
    if _controller_ref(pod) is not None:
        return list(pod.owner_references)
    return [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "name": pod.name,
            "uid": str(pod.uid),
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]


def _waiting_pods() -> list[Pod]:
    return list(
        Pod.objects.filter(
            pod_group__isnull=True,
            job__isnull=True,
            scheduler_name=VOLCANO,
            phase__in=(PodPhase.PENDING, PodPhase.RUNNING),
            deletion_time__isnull=True,
        ).exclude(annotations__has_key=GROUP_NAME)
    )


def _queue_problem(name: str) -> str:
    """Return why the PodGroup webhook would refuse a group in queue ``name`` ("" if none)."""
    state = Queue.objects.filter(name=name).values_list("state", flat=True).first()
    if state is None:
        return f"unable to find queue: {name}"
    if state != QueueState.OPEN:
        return (
            f"can only submit PodGroup to queue with state `Open`, queue `{name}` "
            f"status is `{state}`"
        )
    return ""


def _give_group(pod: Pod, now: dt.datetime) -> bool:
    """Create (or join) the pod's implicit PodGroup and link the pod; return True if linked."""
    name = pod_group_name(pod)
    group = PodGroup.objects.filter(namespace=pod.namespace, name=name).first()
    if group is None:
        queue = str(pod.annotations.get(QUEUE_NAME) or DEFAULT_QUEUE)
        problem = _queue_problem(queue)
        if problem:
            # Volcano's webhook refuses the group and its controller retries: so do we, each pass.
            record_event(
                pod, kind="Pod", reason="FailedCreatePodGroup", now=now,
                message=f"Failed to create PodGroup {name}: {problem}",
                event_type=EventType.WARNING,
            )  # fmt: skip
            return False
        group = PodGroup.objects.create(
            namespace=pod.namespace,
            name=name,
            queue=queue,
            min_member=1,
            min_resources=dict(pod.requests),
            priority_class_name=str(pod.spec.get("priorityClassName") or ""),
            owner_references=_owner_references(pod),
        )
    pod.pod_group = group
    pod.save(update_fields=["pod_group"])
    return True


def _join_named_groups() -> int:
    """Link pods that name a PodGroup created after them; return how many."""
    joined = 0
    named = Pod.objects.filter(
        pod_group__isnull=True, job__isnull=True, phase__in=(PodPhase.PENDING, PodPhase.RUNNING)
    ).filter(annotations__has_key=GROUP_NAME)
    for pod in named:
        name = str(pod.annotations.get(GROUP_NAME) or "")
        group = PodGroup.objects.filter(namespace=pod.namespace, name=name).first()
        if group is None:
            continue
        pod.pod_group = group
        pod.annotations = {k: v for k, v in pod.annotations.items() if k != GROUP_NAME}
        pod.save(update_fields=["pod_group", "annotations"])  # the annotation shows the link
        joined += 1
    return joined


def reconcile_normal_pods(now: dt.datetime) -> int:
    """Give every Volcano-scheduled pod without a PodGroup its implicit one; return how many."""
    linked = _join_named_groups()
    for pod in _waiting_pods():
        try:
            with transaction.atomic():
                current = Pod.objects.select_for_update().filter(pk=pod.pk).first()
                if current is None or current.pod_group_id is not None:
                    continue
                linked += _give_group(current, now)
        except Exception:  # one bad pod must not stop the others; the next pass retries
            logger.exception("creating the PodGroup of pod %s failed", pod)
    return linked
