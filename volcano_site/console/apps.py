"""App config: connect the live-update publisher to the change stream at start-up."""

from __future__ import annotations

from django.apps import AppConfig


class ConsoleConfig(AppConfig):
    """The console's shared layer (``volcano_site.console``)."""

    name = "volcano_site.console"
    label = "console"
    verbose_name = "Console"

    def ready(self) -> None:
        from django.db.models.signals import post_save

        from scheduler.models import SessionRecord
        from volcano_site.console import live
        from volcano_site.kube.changes import add_commit_listener

        add_commit_listener(live.stream_written)
        post_save.connect(
            live.session_recorded, sender=SessionRecord, dispatch_uid="console-live-session"
        )
