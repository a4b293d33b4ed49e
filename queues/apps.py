"""App config for queues: Volcano's fair-share queues."""

from __future__ import annotations

from django.apps import AppConfig


class QueuesConfig(AppConfig):
    """The queues app."""

    name = "queues"
    verbose_name = "Queues"

    def ready(self) -> None:
        """Register with the kernel."""
        self.register()

    def register(self) -> None:
        """Register this app's kinds with the kernel (``queues.api.kinds``)."""
        # Models load only once the apps are ready: the registration module imports them.
        from queues.api import kinds

        kinds.register()
