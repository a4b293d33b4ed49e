"""App config for jobs: Job, PodGroup, Pod, PriorityClass, Command, Event."""

from __future__ import annotations

from django.apps import AppConfig


class JobsConfig(AppConfig):
    """The jobs app."""

    name = "jobs"
    verbose_name = "Jobs"

    def ready(self) -> None:
        """Register with the kernel; collect a deleted job's or queue's Commands."""
        self.register()
        from django.db.models.signals import post_delete

        from jobs.garbage import collect_commands
        from jobs.models import Job
        from queues.models import Queue

        for owner in (Job, Queue):
            post_delete.connect(
                collect_commands, sender=owner, dispatch_uid=f"gc-commands-{owner.__name__}"
            )

    def register(self) -> None:
        """Register this app's kinds and eviction hook with the kernel (``jobs.api.kinds``)."""
        # Models load only once the apps are ready: the registration module imports them.
        from jobs.api import kinds

        kinds.register()
