"""NetworkPolicy (networking.k8s.io/v1): which pods may talk to the pods it selects.

Stored and served as written; nothing here enforces it (simulated pods exchange no traffic).
Volcano's svc plugin writes one per job, letting in only the job's own pods.
"""

from __future__ import annotations

from django.db import models

from kube.models import KubeObject

__all__ = ["NetworkPolicy"]


class NetworkPolicy(KubeObject):
    """A namespaced NetworkPolicy: ``spec`` as Kubernetes has it (podSelector, ingress...)."""

    spec = models.JSONField(default=dict, blank=True, help_text="NetworkPolicySpec")

    class Meta:
        ordering = ["namespace", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["namespace", "name"], name="network_policy_unique_name"
            ),
        ]
