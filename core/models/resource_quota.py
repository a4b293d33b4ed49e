"""ResourceQuota (v1): the most a namespace's objects may request, and what they use now.

``hard`` is ``spec.hard`` (resource name → milli-units); ``status_hard`` and ``used`` are the
quota controller's (``core.quota``): the hard limits it enforces and what the namespace's
pods and objects use, by the same names (``pods``, ``requests.cpu``, ``limits.memory``,
``requests.nvidia.com/gpu``, ``count/services``...).
"""

from __future__ import annotations

from django.db import models

from kube.models import KubeObject

__all__ = ["ResourceQuota"]


class ResourceQuota(KubeObject):
    """A namespaced ResourceQuota: spec.hard, and status.hard and status.used."""

    hard = models.JSONField(default=dict, blank=True, help_text="spec.hard: name → milli-units")
    status_hard = models.JSONField(
        default=dict, blank=True, help_text="status.hard: name → milli-units"
    )
    used = models.JSONField(default=dict, blank=True, help_text="status.used: name → milli-units")

    class Meta:
        ordering = ["namespace", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["namespace", "name"], name="resource_quota_unique_name"
            ),
        ]
