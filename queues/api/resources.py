"""The queues app's resources: Queue (cluster-scoped) and PodGroup (scheduling.volcano.sh/v1beta1).

Volcano lets a queue's ``status.state`` be given at creation (``Open`` or
``Closed``), so a create keeps it; later state changes go through ``/status``
or the queue's bus Commands.
"""

from __future__ import annotations

from kube.resources import Resource
from queues.manifests import QueueKind
from queues.manifests.pod_group import PodGroupKind

__all__ = ["PODGROUPS", "QUEUES"]

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
QUEUES = Resource(
    manifest=QueueKind(),
    plural="queues",
    group="scheduling.volcano.sh",
    version="v1beta1",
    access="queues",
    field_selectors={"metadata.name": "name", "status.state": "state", "spec.parent": "parent"},
    status_subresource=True,
    status_on_create=True,
    example={
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "Queue",
        "metadata": {"name": "test"},
        "spec": {"weight": 1, "reclaimable": False, "capability": {"cpu": "2"}},
    },
    status_field_names=(
        "state",
        "pending",
        "inqueue",
        "running",
        "completed",
        "unknown",
        "allocated",
    ),
)
