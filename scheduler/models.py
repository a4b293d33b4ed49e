"""The scheduler's own rows: SchedulerConfiguration (versioned, one active), SessionRecord
and the leader lease.

Resource lists (capacity, allocatable) are JSON objects of canonical milli-unit
integers (``{"cpu": 4000, "memory": 8589934592000}``), written by the one
quantity module, so nothing here parses ``"4Gi"`` twice.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from scheduler.conf_text import conf_text_error

__all__ = [
    "LeaderLease",
    "SchedulerConfiguration",
    "SessionRecord",
]


class SchedulerConfiguration(models.Model):
    """One version of volcano-scheduler.conf; exactly one version is active at a time.

    Versions are never edited in place by the console: a change is a new row, so
    history, diff and rollback come for free. A conditional unique constraint
    keeps at most one active row; the migration creates the first active one and
    the services switch the flag inside one transaction.
    """

    version = models.PositiveIntegerField(unique=True)
    text = models.TextField(help_text="volcano-scheduler.conf: actions and tiers (YAML)")
    comment = models.CharField(max_length=500, blank=True)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="scheduler_configurations",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    is_active = models.BooleanField(default=False)

    class Meta:
        ordering = ["-version"]
        constraints = [
            models.UniqueConstraint(
                fields=["is_active"],
                condition=Q(is_active=True),
                name="one_active_scheduler_configuration",
            ),
            models.CheckConstraint(
                condition=Q(version__gte=1), name="configuration_version_positive"
            ),
        ]

    def __str__(self) -> str:
        active = " (active)" if self.is_active else ""
        return f"v{self.version}{active}"

    def clean(self) -> None:
        """Refuse text the engine's conf parser refuses, naming the field it points at."""
        if error := conf_text_error(self.text):
            raise ValidationError({"text": error})

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        """Refuse to delete the active version: the scheduler would have no configuration."""
        if self.is_active:
            raise ValidationError("The active scheduler configuration cannot be deleted.")
        return super().delete(*args, **kwargs)


class SessionRecord(models.Model):
    """Figures of one scheduling session (latencies and counts) for charts and metrics."""

    started_at = models.DateTimeField(db_index=True)
    configuration = models.ForeignKey(
        SchedulerConfiguration, null=True, blank=True, on_delete=models.SET_NULL
    )
    e2e_ms = models.FloatField(help_text="open → actions → close, milliseconds")
    open_ms = models.FloatField(default=0.0)
    apply_ms = models.FloatField(default=0.0)
    action_ms = models.JSONField(default=dict, blank=True, help_text="action → milliseconds")
    plugin_ms = models.JSONField(default=dict, blank=True, help_text="plugin → milliseconds")
    node_count = models.PositiveIntegerField(default=0)
    job_count = models.PositiveIntegerField(default=0)
    pending_task_count = models.PositiveIntegerField(default=0)
    binds = models.PositiveIntegerField(default=0)
    evictions = models.PositiveIntegerField(default=0)
    pipelined = models.PositiveIntegerField(default=0)
    unschedulable = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    # Which scheduler process ran it (its lease holder id: host, pid, a random part).
    worker = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"session {self.started_at:%Y-%m-%d %H:%M:%S} ({self.e2e_ms:.1f} ms)"


class LeaderLease(models.Model):
    """A named lock with an expiry: who runs scheduling sessions now (the database lease).

    Used when there is no Redis (``scheduler/leader.py``): the holder renews ``expires_at`` every
    period; a holder that dies stops renewing and anyone may take the lease once it expires.
    """

    name = models.CharField(max_length=64, unique=True)
    holder = models.CharField(max_length=200, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    acquired_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.name} held by {self.holder or 'nobody'}"
