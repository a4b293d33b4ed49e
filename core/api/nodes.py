"""The Node resource (v1, cluster-scoped): a node's status is given at creation, as kubelets do."""

from __future__ import annotations

from core.manifests.node import NodeKind
from kube.resources import Resource

__all__ = ["NODES"]

NODES = Resource(
    manifest=NodeKind(),
    plural="nodes",
    group="",
    version="v1",
    access="nodes",
    field_selectors={"metadata.name": "name", "spec.unschedulable": "unschedulable"},
    status_on_create=True,
)
