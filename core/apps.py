"""Django's registration of the core app: the v1 kinds (Pod, Node, Namespace, Event, Secret,
PriorityClass)."""

from __future__ import annotations

from django.apps import AppConfig


class CoreConfig(AppConfig):
    """The v1 kinds every other app builds on."""

    name = "core"
    verbose_name = "Core (v1)"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Order node deletions after binds (``core.node_deletion``)."""
        self.register()
        from core import node_deletion

        node_deletion.connect()

    def register(self) -> None:
        """Register the v1 kinds and the namespace machinery (``core.api.kinds``)."""
        # Models load only once the apps are ready: the registration module imports them.
        from core.api import kinds

        kinds.register()
