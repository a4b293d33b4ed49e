"""The jobs app's resources: Job, PodGroup, Pod, Command, Event, PriorityClass.

What may change after creation (Volcano's job update rule) is admission's to
judge (``jobs.admission.validate_job_update``), reached through the store.
"""

from __future__ import annotations

from jobs.manifests.command import CommandKind
from jobs.manifests.event import EventKind
from jobs.manifests.job import JobKind
from jobs.manifests.pod import PodKind
from jobs.manifests.pod_group import PodGroupKind
from jobs.manifests.priority_class import PriorityClassKind
from volcano_site.kube.resources import Resource

__all__ = ["COMMANDS", "EVENTS", "JOBS", "PODGROUPS", "PODS", "PRIORITY_CLASSES"]

JOBS = Resource(
    manifest=JobKind(),
    plural="jobs",
    group="batch.volcano.sh",
    version="v1alpha1",
    access="jobs",
    field_selectors={
        "metadata.name": "name",
        "metadata.namespace": "namespace",
        "spec.queue": "queue",
        "status.state.phase": "phase",
    },
    prefetch_related=("tasks",),
    status_subresource=True,
)
PODGROUPS = Resource(
    manifest=PodGroupKind(),
    plural="podgroups",
    group="scheduling.volcano.sh",
    version="v1beta1",
    access="podgroups",
    field_selectors={
        "metadata.name": "name",
        "metadata.namespace": "namespace",
        "spec.queue": "queue",
        "status.phase": "phase",
    },
    select_related=("job",),
    status_on_create=True,
)
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
    status_on_create=True,
)
COMMANDS = Resource(
    manifest=CommandKind(),
    plural="commands",
    group="bus.volcano.sh",
    version="v1alpha1",
    access="commands",
    field_selectors={"metadata.name": "name", "metadata.namespace": "namespace"},
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
)
