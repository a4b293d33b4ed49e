"""The core group's resources served from this app: Pod, Event, PriorityClass."""

from __future__ import annotations

from core.manifests.event import EventKind
from core.manifests.pod import PodKind
from core.manifests.priority_class import PriorityClassKind
from kube.resources import Resource

__all__ = ["EVENTS", "PODS", "PRIORITY_CLASSES"]

PODS = Resource(
    manifest=PodKind(),
    plural="pods",
    group="",
    version="v1",
    access="pods",
    field_selectors={
        "metadata.name": "name",
        "metadata.namespace": "namespace",
        "spec.nodeName": "node__name",
        "status.phase": "phase",
    },
    select_related=("job", "pod_group", "node"),
    # A pod's status is the kubelet's (the simulated runtime) and the scheduler's: the main
    # endpoint drops it on create and keeps the stored one on update; /status writes it.
    status_subresource=True,
    scheduler_fields=("spec.nodeName",),
)
EVENTS = Resource(
    manifest=EventKind(),
    plural="events",
    group="",
    version="v1",
    access="events",
    field_selectors={
        "metadata.name": "name",
        "metadata.namespace": "namespace",
        "involvedObject.kind": "involved_kind",
        "involvedObject.name": "involved_name",
        # kubectl describe asks for all four of the object it describes.
        "involvedObject.namespace": "involved_namespace",
        "involvedObject.uid": "involved_uid",
        "reason": "reason",
        "type": "type",
    },
    status_on_create=True,
)
PRIORITY_CLASSES = Resource(
    manifest=PriorityClassKind(),
    plural="priorityclasses",
    group="scheduling.k8s.io",
    version="v1",
    access="priorityclasses",
    field_selectors={"metadata.name": "name"},
    example={
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "high-priority"},
        "value": 1000000,
        "globalDefault": False,
        "description": "Jobs that go before the default priority (0).",
    },
)
