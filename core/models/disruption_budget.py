"""PodDisruptionBudget (policy/v1): how many of the pods it selects may be down at once.

``spec`` is kept as written (``minAvailable`` or ``maxUnavailable``, an int or a percent;
``selector``; ``unhealthyPodEvictionPolicy``). The status is the disruption controller's
(``core.disruption``), which the eviction subresource (``core.eviction``) reads and
decrements: ``disruptions_allowed`` is how many more pods may be evicted now, and
``disrupted_pods`` the pods evicted that the controller has not yet seen go.
"""

from __future__ import annotations

from django.db import models

from kube.models import KubeObject

__all__ = ["PodDisruptionBudget"]


class PodDisruptionBudget(KubeObject):
    """A namespaced PodDisruptionBudget: its spec and the disruption controller's status."""

    spec = models.JSONField(default=dict, blank=True, help_text="PodDisruptionBudgetSpec")
    # status (the disruption controller's; the eviction subresource decrements it)
    disruptions_allowed = models.IntegerField(default=0)
    current_healthy = models.IntegerField(default=0)
    desired_healthy = models.IntegerField(default=0)
    expected_pods = models.IntegerField(default=0)
    disrupted_pods = models.JSONField(
        default=dict, blank=True, help_text="pod name → when its eviction was admitted"
    )
    observed_generation = models.BigIntegerField(default=0)
    conditions = models.JSONField(default=list, blank=True, help_text="status.conditions")

    class Meta:
        ordering = ["namespace", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["namespace", "name"], name="disruption_budget_unique_name"
            ),
        ]
