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
        """Serve the v1 kinds (``kube.registry``); order node deletions after binds."""
        # The deletion receivers import the models, which load only once the apps are ready.
        from core import node_deletion

        node_deletion.connect()
        register_kinds()


def register_kinds() -> None:
    """Serve the v1 kinds and the namespace machinery (NamespaceLifecycle, a bundle's
    namespaces, a terminating namespace that finishes once empty)."""
    # Imported once the apps are ready: the kinds import the models.
    from core.api import kinds

    kinds.register()
