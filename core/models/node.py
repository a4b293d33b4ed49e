"""Node (v1): labels, taints, capacity, allocatable and readiness; when its loads were stored.

Resource lists (capacity, allocatable) are JSON objects of canonical milli-unit
integers (``{"cpu": 4000, "memory": 8589934592000}``), written by the one
quantity module, so nothing here parses ``"4Gi"`` twice.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from kube.models import ObjectMeta
from kube.validators import validate_dns1123_subdomain

__all__ = ["Node", "NodeLoadStamp"]


class Node(ObjectMeta):
    """A (simulated) Kubernetes node: labels, taints, capacity, allocatable and readiness."""

    name = models.CharField(max_length=253, unique=True, validators=[validate_dns1123_subdomain])
    # [{"key": ..., "value": ..., "effect": "NoSchedule"}], Kubernetes' Taint shape.
    taints = models.JSONField(default=list, blank=True)
    unschedulable = models.BooleanField(default=False)
    capacity = models.JSONField(default=dict, blank=True, help_text="resource → milli-units")
    allocatable = models.JSONField(default=dict, blank=True, help_text="resource → milli-units")
    ready = models.BooleanField(default=True, help_text="The node's Ready condition")
    ready_reason = models.CharField(max_length=128, blank=True)
    ready_message = models.TextField(blank=True)
    ready_transition_time = models.DateTimeField(null=True, blank=True)
    # As a kubelet reports them (a node dumped from a real cluster keeps its own); empty, a
    # simulated node reports the simulated kubelet's (``core.manifests.node.SIMULATED_NODE``).
    node_info = models.JSONField(default=dict, blank=True, help_text="status.nodeInfo")
    addresses = models.JSONField(default=list, blank=True, help_text="status.addresses")
    # The range its pods' addresses come from: given by the manifest, or allocated from the
    # cluster's range by the node IPAM (``core.network``), as kube-controller-manager does.
    pod_cidr = models.CharField(max_length=49, blank=True, help_text="spec.podCIDR")
    # Status the worker stores after each session (``scheduler.load_status``), not spec: the
    # requests of the node's Pending and Running pods (milli-units) and their count. Written
    # without a resourceVersion bump; the Nodes pages read them instead of summing every pod.
    load_cpu = models.PositiveBigIntegerField(default=0, editable=False)
    load_memory = models.PositiveBigIntegerField(default=0, editable=False)
    load_gpu = models.PositiveBigIntegerField(default=0, editable=False)
    load_pods = models.PositiveIntegerField(default=0, editable=False)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=~Q(name=""), name="node_name_not_empty"),
            # Two nodes never share a pod range: racing allocations cannot both win.
            models.UniqueConstraint(
                fields=["pod_cidr"], condition=~Q(pod_cidr=""), name="node_unique_pod_cidr"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class NodeLoadStamp(models.Model):
    """When the worker last stored the nodes' loads (one row, ``pk=1``).

    The Nodes pages trust the stored loads while this is recent (``scheduler.load_status``);
    with no worker running they sum the pods themselves, so they are never silently stale.
    """

    stored_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"node loads stored at {self.stored_at:%Y-%m-%d %H:%M:%S}"
