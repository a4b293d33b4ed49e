"""App config for jobs: Job, PodGroup, Pod, PriorityClass, Command, Event."""

from __future__ import annotations

from django.apps import AppConfig

from kube import registry


class JobsConfig(AppConfig):
    """The jobs app."""

    name = "jobs"
    verbose_name = "Jobs"

    def ready(self) -> None:
        from django.db.models.signals import post_delete

        from jobs.garbage import collect_commands
        from jobs.models import Job
        from queues.models import Queue

        for owner in (Job, Queue):
            post_delete.connect(
                collect_commands, sender=owner, dispatch_uid=f"gc-commands-{owner.__name__}"
            )
        register_controllers()


def register_controllers() -> None:
    """Have the scheduler worker run the job controller each cycle, first of the controllers."""
    # Imported once the apps are ready: the controller imports the models.
    from jobs.controller import reconcile_all

    registry.add_controller(registry.Controller("jobs", reconcile_all, order=10))
