"""Django's registration of the flow app: JobTemplate, JobFlow and CronJob, and their controllers."""

from __future__ import annotations

from django.apps import AppConfig


class FlowConfig(AppConfig):
    """Volcano's workflow kinds and the controllers that make jobs of them."""

    name = "flow"
    verbose_name = "Workflows (flow.volcano.sh)"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Register the kinds with the kernel (``kube.registry``)."""
        register_kinds()


def register_kinds() -> None:
    """Serve JobTemplate, JobFlow and CronJob: discovery names, printer columns, access rules."""
    # Imported once the apps are ready: the kinds import the models.
    from flow.api import kinds

    kinds.register()
