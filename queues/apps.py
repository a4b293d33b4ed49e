"""App config for queues: Volcano's fair-share queues and their PodGroups."""

from __future__ import annotations

import logging

from django.apps import AppConfig

from kube import registry

logger = logging.getLogger(__name__)


class QueuesConfig(AppConfig):
    """The queues app."""

    name = "queues"
    verbose_name = "Queues"

    def ready(self) -> None:
        """Register the kinds and the scheduler's start-up chore (``kube.registry``)."""
        register_kinds()
        register_startup_hooks()


def register_kinds() -> None:
    """Serve PodGroup and Queue: discovery names, printer columns, access rules, apply order,
    the queue's delete admission and audited fields."""
    # Imported once the apps are ready: the kinds import the models.
    from queues.api import kinds

    kinds.register()


def register_startup_hooks() -> None:
    """Have a starting scheduler loop create ``root`` and ``default`` if missing, as Volcano's
    scheduler does when it starts (``newDefaultAndRootQueue``)."""
    registry.add_startup_hook("queues.builtin", ensure_builtin_queues)


def ensure_builtin_queues() -> None:
    """Create the built-in queues that are missing; say which."""
    # Imported when a loop starts, long after the apps are ready: the services import the models.
    from queues.services import queue_ensure_builtin

    made = queue_ensure_builtin()
    if made:
        logger.info("created the built-in queues %s", ", ".join(made))
