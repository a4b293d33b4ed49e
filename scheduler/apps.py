"""App config for the scheduler: nodes, configurations, sessions (and later the worker)."""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig


def _session_recorded(sender: Any, **kwargs: Any) -> None:
    """``post_save`` of ``SessionRecord``: pages showing sessions refresh after commit."""
    # The change stream imports the kernel's models, which load only once apps are ready.
    from kube.changes import announce_on_commit

    announce_on_commit("scheduler.session")


class SchedulerConfig(AppConfig):
    """The scheduler app."""

    name = "scheduler"
    verbose_name = "Scheduler"

    def ready(self) -> None:
        """Order node deletions after binds; start the embedded loop if asked (``make run``)."""
        self.register()
        from core import node_deletion
        from scheduler import embedded

        node_deletion.connect()
        embedded.start()

    def register(self) -> None:
        """Register with the kernel: the configuration's manifest, loader and API name, and
        the ``scheduler.session`` topic announced for each recorded session."""
        # Models load only once the apps are ready: the registration modules import them.
        from django.db.models.signals import post_save

        from scheduler.api import kinds
        from scheduler.models import SessionRecord

        kinds.register()
        post_save.connect(
            _session_recorded, sender=SessionRecord, dispatch_uid="scheduler-session-topic"
        )
