"""The jobs app's models, one module per kind (STYLE.md): import them from here."""

from __future__ import annotations

from jobs.models.command import Command, CommandAction, TargetKind
from jobs.models.delayed_action import DelayedAction
from jobs.models.job import WAITING_PHASES, Job, JobPhase, TaskSpec
from jobs.models.pod_eviction import PodEviction

__all__ = [
    "WAITING_PHASES",
    "Command",
    "CommandAction",
    "DelayedAction",
    "Job",
    "JobPhase",
    "PodEviction",
    "TargetKind",
    "TaskSpec",
]
