"""Namespace (v1): namespaced objects can only be created in one that exists and is Active."""

from __future__ import annotations

from django.db import models

from kube.models import ObjectMeta
from kube.validators import validate_dns1123_label

__all__ = ["Namespace", "NamespacePhase"]


class NamespacePhase(models.TextChoices):
    """Kubernetes' namespace phases."""

    ACTIVE = "Active"
    TERMINATING = "Terminating"


class Namespace(ObjectMeta):
    """A ``v1`` Namespace: namespaced objects can only be created in one that exists."""

    name = models.CharField(max_length=63, unique=True, validators=[validate_dns1123_label])
    phase = models.CharField(
        max_length=16, choices=NamespacePhase.choices, default=NamespacePhase.ACTIVE
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name
