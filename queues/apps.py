"""App config for queues: Volcano's fair-share queues."""

from __future__ import annotations

from django.apps import AppConfig


class QueuesConfig(AppConfig):
    """The queues app."""

    name = "queues"
    verbose_name = "Queues"
