"""The monitoring app: the scheduler's recorded history (queues, DRF shares, sessions)."""

from __future__ import annotations

from django.apps import AppConfig


class MonitoringConfig(AppConfig):
    """Django's registration of the monitoring app."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "monitoring"
