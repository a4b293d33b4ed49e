"""ConfigMap (v1): named configuration data of a namespace, such as the svc plugin's hosts.

``data`` maps a key (a file name when the ConfigMap is mounted as a volume) to its text;
``binaryData`` to base64 of bytes. Volcano's svc plugin writes ``<job>-svc``, whose
``<task>.host`` keys pods mount at ``/etc/volcano`` to find their peers.
"""

from __future__ import annotations

from django.db import models

from kube.models import KubeObject

__all__ = ["ConfigMap"]


class ConfigMap(KubeObject):
    """A namespaced ConfigMap: text data, binary data, and whether it may still change."""

    data = models.JSONField(default=dict, blank=True, help_text="key → text")
    binary_data = models.JSONField(default=dict, blank=True, help_text="key → base64")
    immutable = models.BooleanField(null=True, blank=True)

    class Meta:
        ordering = ["namespace", "name"]
        constraints = [
            models.UniqueConstraint(fields=["namespace", "name"], name="config_map_unique_name"),
        ]
