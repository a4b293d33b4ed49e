"""The jobs app's models, one module per kind (STYLE.md): import them from here."""

from __future__ import annotations

from jobs.models.command import Command, CommandAction, TargetKind
from jobs.models.event import Event, EventType
from jobs.models.job import Job, JobPhase, TaskSpec
from jobs.models.pod import Pod, PodPhase, TaskStatus
from jobs.models.pod_group import PodGroup, PodGroupPhase
from jobs.models.priority_class import PreemptionPolicy, PriorityClass
from jobs.models.secret import Secret, SecretType

__all__ = [
    "Command",
    "CommandAction",
    "Event",
    "EventType",
    "Job",
    "JobPhase",
    "Pod",
    "PodGroup",
    "PodGroupPhase",
    "PodPhase",
    "PreemptionPolicy",
    "PriorityClass",
    "Secret",
    "SecretType",
    "TargetKind",
    "TaskSpec",
    "TaskStatus",
]
