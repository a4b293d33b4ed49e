"""Event (v1): what happened to an object, aggregated by (object, reason, message) with a count."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

__all__ = ["Event", "EventType"]


class EventType(models.TextChoices):
    """Kubernetes event types."""

    NORMAL = "Normal"
    WARNING = "Warning"


class Event(models.Model):
    """One event about an involved object; repeats bump ``count`` and ``last_timestamp``."""

    namespace = models.CharField(max_length=63, default="default")
    name = models.CharField(max_length=253, blank=True)
    involved_kind = models.CharField(max_length=63)
    involved_namespace = models.CharField(max_length=63, blank=True)
    involved_name = models.CharField(max_length=253)
    involved_uid = models.UUIDField(null=True, blank=True)
    type = models.CharField(max_length=16, choices=EventType.choices, default=EventType.NORMAL)
    reason = models.CharField(max_length=128)
    message = models.TextField(blank=True)
    source = models.CharField(max_length=128, blank=True, help_text="Component that reported it")
    count = models.PositiveIntegerField(default=1)
    first_timestamp = models.DateTimeField()
    last_timestamp = models.DateTimeField()

    class Meta:
        ordering = ["-last_timestamp"]
        constraints = [
            models.CheckConstraint(condition=Q(type__in=EventType.values), name="event_type_valid"),
            models.CheckConstraint(condition=Q(count__gte=1), name="event_count_positive"),
        ]
        indexes = [
            models.Index(
                fields=["involved_kind", "involved_namespace", "involved_name"],
                name="event_involved_object",
            )
        ]

    def __str__(self) -> str:
        return f"{self.type} {self.reason} {self.involved_kind}/{self.involved_name}"
