"""Service and Endpoints (v1): a stable name for the pods a selector picks, and their addresses.

A Service's ``selector`` picks pods by label; the endpoints controller (``core.endpoints``)
writes, per Service, an Endpoints object of the same name listing the addresses of the
running pods it picks, as kube-controller-manager does. A headless Service (``clusterIP:
None``, what Volcano's svc plugin creates) gets no virtual address: its name resolves to the
pods themselves, and ``<hostname>.<subdomain>`` to one pod.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from kube.models import KubeObject

__all__ = ["CLUSTER_IP_NONE", "EndpointSlice", "Endpoints", "Service", "ServiceType"]

CLUSTER_IP_NONE = "None"  # a headless Service's clusterIP


class ServiceType(models.TextChoices):
    """Kubernetes' Service types."""

    CLUSTER_IP = "ClusterIP"
    NODE_PORT = "NodePort"
    LOAD_BALANCER = "LoadBalancer"
    EXTERNAL_NAME = "ExternalName"


class Service(KubeObject):
    """A namespaced Service: its type, virtual address, selector and ports."""

    type = models.CharField(
        max_length=16, choices=ServiceType.choices, default=ServiceType.CLUSTER_IP
    )
    # "None" for a headless Service; an address of the service range otherwise ("" for an
    # ExternalName Service, which has none).
    cluster_ip = models.CharField(max_length=45, blank=True)
    selector = models.JSONField(default=dict, blank=True, help_text="label → value")
    ports = models.JSONField(default=list, blank=True, help_text="spec.ports")
    publish_not_ready_addresses = models.BooleanField(default=False)
    external_name = models.CharField(max_length=253, blank=True)
    session_affinity = models.CharField(max_length=16, default="None")

    class Meta:
        ordering = ["namespace", "name"]
        constraints = [
            models.UniqueConstraint(fields=["namespace", "name"], name="service_unique_name"),
            # One Service per virtual address: two allocations racing cannot both win.
            models.UniqueConstraint(
                fields=["cluster_ip"],
                condition=~Q(cluster_ip__in=["", CLUSTER_IP_NONE]),
                name="service_unique_cluster_ip",
            ),
        ]

    @property
    def headless(self) -> bool:
        """Return whether the Service has no virtual address (``clusterIP: None``)."""
        return self.cluster_ip == CLUSTER_IP_NONE


class Endpoints(KubeObject):
    """The addresses of the pods a Service selects (``subsets``), named after the Service."""

    subsets = models.JSONField(default=list, blank=True, help_text="subsets")

    class Meta:
        ordering = ["namespace", "name"]
        verbose_name_plural = "endpoints"
        constraints = [
            models.UniqueConstraint(fields=["namespace", "name"], name="endpoints_unique_name"),
        ]


class EndpointSlice(KubeObject):
    """A slice of a Service's endpoints (``discovery.k8s.io/v1``), labelled with its name.

    Written by the endpoints controller beside the Service's Endpoints: one slice per
    Service, owned by it, as ``kubectl describe service`` reads them.
    """

    address_type = models.CharField(max_length=8, default="IPv4")
    endpoints = models.JSONField(default=list, blank=True, help_text="endpoints")
    ports = models.JSONField(default=list, blank=True, help_text="ports")

    class Meta:
        ordering = ["namespace", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["namespace", "name"], name="endpoint_slice_unique_name"
            ),
        ]
