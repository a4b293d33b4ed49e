"""App config for jobs: Job, PodGroup, Pod, PriorityClass, Command, Event."""

from __future__ import annotations

from django.apps import AppConfig


class JobsConfig(AppConfig):
    """The jobs app."""

    name = "jobs"
    verbose_name = "Jobs"
