"""Numatopology (``nodeinfo.volcano.sh/v1alpha1``): one node's NUMA layout, as Volcano's resource
exporter publishes it for the numa-aware plugin.

Cluster-scoped, named after its node. The spec is kept as the exporter writes it (maps keyed by
resource and CPU id, ``kubelet.manifests``): nothing here queries inside it, and the scheduler
parses it once per session (``scheduler.engine.util.numa_manifest``).
"""

from __future__ import annotations

from django.db import models

from kube.models import ObjectMeta
from kube.validators import validate_dns1123_subdomain

__all__ = ["Numatopology"]


class Numatopology(ObjectMeta):
    """A node's kubelet policies, NUMA resources, CPU details and exclusive CPU allocations."""

    name = models.CharField(max_length=253, unique=True, validators=[validate_dns1123_subdomain])
    policies = models.JSONField(default=dict, blank=True, help_text="spec.policies")
    res_reserved = models.JSONField(default=dict, blank=True, help_text="spec.resReserved")
    numares = models.JSONField(default=dict, blank=True, help_text="spec.numares")
    cpu_detail = models.JSONField(default=dict, blank=True, help_text="spec.cpuDetail")
    pod_allocations = models.JSONField(default=list, blank=True, help_text="spec.podAllocations")

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "numatopologies"

    def __str__(self) -> str:
        return self.name
