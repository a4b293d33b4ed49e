"""App config for the scheduler: nodes, configurations, sessions (and later the worker)."""

from __future__ import annotations

from django.apps import AppConfig


class SchedulerConfig(AppConfig):
    """The scheduler app."""

    name = "scheduler"
    verbose_name = "Scheduler"

    def ready(self) -> None:
        """Start the embedded scheduler loop when the server asked for it (``make run``)."""
        from scheduler import embedded

        embedded.start()
