"""What every namespaced Kubernetes object row has: namespace, name, uid, resourceVersion, metadata."""

from __future__ import annotations

import uuid

from django.db import models

from scheduler.validators import validate_dns1123_label, validate_dns1123_subdomain

__all__ = ["KubeObject"]


class KubeObject(models.Model):
    """Abstract base: ``metadata`` of a namespaced object (name unique per namespace)."""

    namespace = models.CharField(
        max_length=63, default="default", validators=[validate_dns1123_label]
    )
    name = models.CharField(max_length=253, validators=[validate_dns1123_subdomain])
    uid = models.UUIDField(default=uuid.uuid4, editable=False)
    resource_version = models.PositiveBigIntegerField(default=1, editable=False)
    labels = models.JSONField(default=dict, blank=True)
    annotations = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"
