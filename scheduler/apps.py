"""App config for the scheduler: configurations, sessions, the worker and its pages."""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig


class SchedulerConfig(AppConfig):
    """The scheduler app."""

    name = "scheduler"
    verbose_name = "Scheduler"

    def ready(self) -> None:
        """Register with the kernel (the server starts the embedded loop: ``volcano_site.asgi``)."""
        register_kinds()
        register_session_topic()


def register_kinds() -> None:
    """Register the configuration's manifest, its ``.conf`` loader and its API resource."""
    # Imported once the apps are ready: the manifests import the models.
    from scheduler.api import kinds

    kinds.register()


def register_session_topic() -> None:
    """Announce ``scheduler.session`` after each recorded session: pages showing sessions
    refresh (through the change stream's commit hook, which the console passes on)."""
    # Imported once the apps are ready: both import models.
    from django.db.models.signals import post_save

    from scheduler.models import SessionRecord

    post_save.connect(
        _session_recorded, sender=SessionRecord, dispatch_uid="scheduler-session-topic"
    )


def _session_recorded(sender: Any, **kwargs: Any) -> None:
    # Imported at the first session, long after the apps are ready: the stream imports models.
    from kube.changes import announce_on_commit

    announce_on_commit("scheduler.session")
