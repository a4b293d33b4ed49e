"""App config for jobs: batch.volcano.sh Job and bus.volcano.sh Command, and their controller."""

from __future__ import annotations

from django.apps import AppConfig

from kube import registry


class JobsConfig(AppConfig):
    """The jobs app."""

    name = "jobs"
    verbose_name = "Jobs"

    def ready(self) -> None:
        """Register with the kernel; collect a deleted job's or queue's Commands."""
        # The models load only once the apps are ready.
        from django.db.models.signals import post_delete

        from jobs.garbage import collect_commands
        from jobs.models import Job
        from queues.models import Queue

        for owner in (Job, Queue):
            post_delete.connect(
                collect_commands, sender=owner, dispatch_uid=f"gc-commands-{owner.__name__}"
            )
        register_kinds()
        register_controllers()
        register_examples()
        register_eviction_hooks()
        register_queue_references()


def register_kinds() -> None:
    """Serve Job and Command: discovery names, printer columns, access rules, apply order."""
    # Imported once the apps are ready: the kinds import the models.
    from jobs.api import kinds

    kinds.register()


def register_controllers() -> None:
    """Have the scheduler worker run the job controller each cycle, first of the controllers."""
    # Imported once the apps are ready: the controller imports the models.
    from jobs.controller import reconcile_all

    registry.add_controller(registry.Controller("jobs", reconcile_all, order=10))


def register_eviction_hooks() -> None:
    """Hear of every pod deleted by anyone but the job controller (Volcano's ``PodEvicted``)."""
    # Imported once the apps are ready: the hook imports the models.
    from jobs.evictions import note_pod_deleted

    registry.add_eviction_hook("core.pod", "jobs.pod-evicted", note_pod_deleted)


def register_queue_references() -> None:
    """Count the jobs naming a queue, which the console will not delete from under them."""
    # Imported once the apps are ready: the selectors import the models.
    from jobs.selectors import queue_job_count

    registry.add_reference_counter("queues.queue", "jobs", queue_job_count)


def register_examples() -> None:
    """Offer Volcano's example jobs as the Submit page's templates."""
    # Imported once the apps are ready: the submit module imports Django's forms.
    from jobs.submit import EXAMPLES_DIR

    registry.register_examples("jobs", EXAMPLES_DIR)
