"""App config: connect the live-update publisher to the change stream at start-up."""

from __future__ import annotations

from django.apps import AppConfig


class ConsoleConfig(AppConfig):
    """The console's shared layer (``console``)."""

    name = "console"
    label = "console"
    verbose_name = "Console"

    def ready(self) -> None:
        from django.db.models.signals import post_save

        from console import live
        from kube.changes import add_commit_listener
        from scheduler.models import SessionRecord

        add_commit_listener(live.stream_written)
        post_save.connect(
            live.session_recorded, sender=SessionRecord, dispatch_uid="console-live-session"
        )
