"""The jobs app's resources: Job, PodGroup, Pod, Command, Event, PriorityClass.

What may change after creation (Volcano's job update rule) is admission's to
judge (``jobs.admission.validate_job_update``), reached through the store.
"""

from __future__ import annotations

from django.db.models import Prefetch

from jobs.manifests.command import CommandKind
from jobs.manifests.event import EventKind
from jobs.manifests.job import JobKind
from jobs.manifests.pod import PodKind
from jobs.manifests.pod_group import PodGroupKind
from jobs.manifests.priority_class import PriorityClassKind
from jobs.models import TaskSpec
from volcano_site.kube.resources import Resource

__all__ = ["COMMANDS", "EVENTS", "JOBS", "PODGROUPS", "PODS", "PRIORITY_CLASSES"]

# Volcano's smallest example job (nginx that sleeps), in the default queue.
JOB_EXAMPLE = {
    "apiVersion": "batch.volcano.sh/v1alpha1",
    "kind": "Job",
    "metadata": {"name": "job-1"},
    "spec": {
        "minAvailable": 1,
        "schedulerName": "volcano",
        "queue": "default",
        "policies": [{"event": "PodEvicted", "action": "RestartJob"}],
        "tasks": [
            {
                "replicas": 1,
                "name": "nginx",
                "policies": [{"event": "TaskCompleted", "action": "CompleteJob"}],
                "template": {
                    "spec": {
                        "containers": [
                            {
                                "command": ["sleep", "10m"],
                                "image": "nginx:latest",
                                "name": "nginx",
                                "resources": {
                                    "requests": {"cpu": "1"},
                                    "limits": {"cpu": "1"},
                                },
                            }
                        ],
                        "restartPolicy": "Never",
                    }
                },
            }
        ],
    },
}

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
    # Ordered by index alone: TaskSpec's default ordering would join jobs_job for each page.
    prefetch_related=(Prefetch("tasks", queryset=TaskSpec.objects.order_by("index")),),
    status_subresource=True,
    example=JOB_EXAMPLE,
    creator_field="creator",  # the console's "my jobs"
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
    example={
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "test"},
        "spec": {"minMember": 1, "minResources": {"cpu": "3"}, "queue": "default"},
    },
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
    # A pod's status is the kubelet's (the simulated runtime) and the scheduler's: the main
    # endpoint drops it on create and keeps the stored one on update; /status writes it.
    status_subresource=True,
    scheduler_fields=("spec.nodeName",),
)
COMMANDS = Resource(
    manifest=CommandKind(),
    plural="commands",
    group="bus.volcano.sh",
    version="v1alpha1",
    access="commands",
    field_selectors={"metadata.name": "name", "metadata.namespace": "namespace"},
    creator_field="issuer",
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
