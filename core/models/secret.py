"""Secret (v1): named key material of a namespace, such as the ssh plugin's ``<job>-ssh``.

``data`` holds Kubernetes' wire form: file name → base64 of the bytes. Pods refer
to a Secret by name (a ``secret`` volume) and never carry its data, so reading a
pod never reveals a key; reading Secrets is a right of its own (``core/api/kinds.py``, ``accounts.roles``).
"""

from __future__ import annotations

import base64

from django.db import models

from kube.models import KubeObject

__all__ = ["Secret", "SecretType"]


class SecretType(models.TextChoices):
    """The Secret types the controller writes (Kubernetes has more; any string is accepted)."""

    OPAQUE = "Opaque"


class Secret(KubeObject):
    """A namespaced Secret; ``job`` is its controlling owner (deleted with it), if any."""

    job = models.ForeignKey(
        "jobs.Job", null=True, blank=True, on_delete=models.CASCADE, related_name="secrets"
    )
    type = models.CharField(max_length=253, default=SecretType.OPAQUE)
    data = models.JSONField(default=dict, blank=True, help_text="key → base64 of the value")

    class Meta:
        ordering = ["namespace", "name"]
        constraints = [
            models.UniqueConstraint(fields=["namespace", "name"], name="secret_unique_name"),
        ]

    def decoded(self) -> dict[str, str]:
        """Return ``data`` decoded to text (the files a pod sees in the mounted volume)."""
        return {key: base64.b64decode(value).decode() for key, value in self.data.items()}

    @staticmethod
    def encode(values: dict[str, str]) -> dict[str, str]:
        """Return ``values`` in the wire form of ``data`` (base64 of UTF-8)."""
        return {key: base64.b64encode(value.encode()).decode() for key, value in values.items()}
