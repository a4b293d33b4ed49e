"""The Queue resource: cluster-scoped, with a ``/status`` subresource as Volcano's CRD has.

Volcano lets a queue's ``status.state`` be given at creation (``Open`` or
``Closed``), so a create keeps it; later state changes go through ``/status``
or the queue's bus Commands.
"""

from __future__ import annotations

from queues.manifests import QueueKind
from volcano_site.kube.resources import Resource

__all__ = ["QUEUES"]

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
