"""PodGroup (scheduling.volcano.sh/v1beta1): the gang the scheduler admits as a whole."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from kube.models import KubeObject

__all__ = ["PodGroup", "PodGroupPhase"]


class PodGroupPhase(models.TextChoices):
    """Volcano's PodGroup phases (the scheduler moves Pending → Inqueue → Running)."""

    PENDING = "Pending"
    INQUEUE = "Inqueue"
    RUNNING = "Running"
    UNKNOWN = "Unknown"
    COMPLETED = "Completed"


class PodGroup(KubeObject):
    """A gang: at least ``min_member`` pods must be placed together or none is."""

    job = models.ForeignKey(
        "jobs.Job", null=True, blank=True, on_delete=models.CASCADE, related_name="pod_groups"
    )
    min_member = models.PositiveIntegerField(default=0)
    min_task_member = models.JSONField(default=dict, blank=True, help_text="task → minimum")
    min_resources = models.JSONField(default=dict, blank=True, help_text="resource → milli-units")
    queue = models.CharField(max_length=63, default="default")
    # A name, not a foreign key: Volcano accepts a PodGroup naming a class that does not exist.
    priority_class_name = models.CharField(max_length=253, blank=True)
    # Wire shapes: {mode, highestTierAllowed | highestTierName} and
    # [{name, networkTopology, subGroupSize, minSubGroups, labelSelector, matchLabelKeys}].
    network_topology = models.JSONField(null=True, blank=True, help_text="{mode, ...}")
    sub_group_policy = models.JSONField(default=list, blank=True, help_text="[{name, ...}]")

    phase = models.CharField(
        max_length=16, choices=PodGroupPhase.choices, default=PodGroupPhase.PENDING
    )
    # [{type, status, reason, message, lastTransitionTime, transitionID}] as on the wire.
    conditions = models.JSONField(default=list, blank=True)
    running = models.PositiveIntegerField(default=0)
    succeeded = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["namespace", "name"]
        constraints = [
            models.UniqueConstraint(fields=["namespace", "name"], name="podgroup_unique_name"),
            models.CheckConstraint(
                condition=Q(phase__in=PodGroupPhase.values), name="podgroup_phase_valid"
            ),
        ]
        # No index on phase: the scheduler writes phase and counts every session, and with no
        # indexed column changing those writes are HOT updates on PostgreSQL (migration 0007).
        # 10,000 PodGroups: 90 ms → 27 ms. Per-queue figures are aggregates over every group;
        # ``queue`` alone, which status writes never change, keeps "does this queue still have
        # groups" (closing or deleting a queue) an index lookup.
        indexes = [models.Index(fields=["queue"], name="podgroup_queue")]
