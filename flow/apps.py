"""Django's registration of the flow app: JobTemplate, JobFlow and CronJob, and their controllers."""

from __future__ import annotations

from pathlib import Path

from django.apps import AppConfig

from kube import registry

# Volcano's JobFlow (with its templates) and CronJob examples, offered by the Submit page.
EXAMPLES_DIR = Path(__file__).resolve().parent / "examples"


class FlowConfig(AppConfig):
    """Volcano's workflow kinds and the controllers that make jobs of them."""

    name = "flow"
    verbose_name = "Workflows (flow.volcano.sh)"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Register the kinds and the controllers with the kernel (``kube.registry``)."""
        register_kinds()
        register_controllers()
        registry.register_examples("flow", EXAMPLES_DIR)


def register_kinds() -> None:
    """Serve JobTemplate, JobFlow and CronJob: discovery names, printer columns, access rules."""
    # Imported once the apps are ready: the kinds import the models.
    from flow.api import kinds

    kinds.register()


def register_controllers() -> None:
    """Have the worker run the JobFlow and CronJob controllers each cycle, after the job
    controller (10: the jobs they wait on are current) and before the training operator (20)."""
    # Imported once the apps are ready: the controllers import the models.
    from flow.controller.cronjob import reconcile_cron_jobs
    from flow.controller.jobflow import reconcile_job_flows

    registry.add_controller(registry.Controller("jobflow", reconcile_job_flows, order=15))
    registry.add_controller(registry.Controller("cronjob", reconcile_cron_jobs, order=16))
