"""Django's registration of the topology app: the HyperNode kind and its controller."""

from __future__ import annotations

from django.apps import AppConfig


class TopologyConfig(AppConfig):
    """HyperNodes: the network topology the scheduler places jobs by."""

    name = "topology"
    verbose_name = "Network topology"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Serve HyperNode and run its controller (``kube.registry``)."""
        # Imported once the apps are ready: the kinds import the models.
        from topology.api import kinds

        kinds.register()
