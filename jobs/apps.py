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
        register_queue_references()


def register_queue_references() -> None:
    """Count the jobs naming a queue, which the console will not delete from under them."""
    # Imported once the apps are ready: the selectors import the models.
    from jobs.selectors import queue_job_count

    registry.add_reference_counter("queues.queue", "jobs", queue_job_count)
