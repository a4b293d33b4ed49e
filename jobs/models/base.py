"""What every namespaced Kubernetes object row has: a namespace and a name unique in it."""

from __future__ import annotations

from django.db import models

from scheduler.models import ObjectMeta
from scheduler.validators import validate_dns1123_label, validate_dns1123_subdomain

__all__ = ["KubeObject"]


class KubeObject(ObjectMeta):
    """Abstract base of namespaced objects (Job, PodGroup, Pod, Command)."""

    namespace = models.CharField(
        max_length=63, default="default", validators=[validate_dns1123_label]
    )
    name = models.CharField(max_length=253, validators=[validate_dns1123_subdomain])

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"
