"""App config: connect the live-update publisher to the change stream at start-up."""

from __future__ import annotations

from django.apps import AppConfig


class ConsoleConfig(AppConfig):
    """The console's shared layer (``console``)."""

    name = "console"
    label = "console"
    verbose_name = "Console"

    def ready(self) -> None:
        """Publish what every commit wrote (served objects and free topics) to live pages."""
        # The change stream imports the kernel's models, which load only once apps are ready.
        from console import live
        from kube.changes import add_commit_listener

        add_commit_listener(live.stream_written)
