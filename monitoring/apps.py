"""The monitoring app: the scheduler's recorded history (queues, DRF shares, sessions)."""

from __future__ import annotations

from django.apps import AppConfig

from kube import registry


class MonitoringConfig(AppConfig):
    """Django's registration of the monitoring app."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "monitoring"

    def ready(self) -> None:
        """Register the history's after-session hooks with the worker (``kube.registry``)."""
        register_session_hooks()


def register_session_hooks() -> None:
    """Record each session's sample and the nodes' loads; compact in the leader's housekeeping."""
    # Imported once the apps are ready: the recorder's module imports the history's models.
    from monitoring.recorder import HISTORY_HOOK, NODE_HISTORY_HOOK

    registry.add_session_hook(HISTORY_HOOK)
    registry.add_session_hook(NODE_HISTORY_HOOK)
