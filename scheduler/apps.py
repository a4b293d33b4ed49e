"""App config for the scheduler: nodes, configurations, sessions (and later the worker)."""

from __future__ import annotations

from django.apps import AppConfig


class SchedulerConfig(AppConfig):
    """The scheduler app."""

    name = "scheduler"
    verbose_name = "Scheduler"

    def ready(self) -> None:
        """Order node deletions after binds; start the embedded loop if asked (``make run``)."""
        from core import node_deletion
        from scheduler import embedded

        node_deletion.connect()
        embedded.start()
