"""The jobs app's models, one module per kind (STYLE.md): import them from here."""

from __future__ import annotations

from jobs.models.command import Command, CommandAction, TargetKind
from jobs.models.delayed_action import DelayedAction
from jobs.models.event import Event, EventType
from jobs.models.job import Job, JobPhase, TaskSpec
from jobs.models.pod import Pod, PodPhase, TaskStatus
from jobs.models.pod_eviction import PodEviction
from jobs.models.pod_group import PodGroup, PodGroupPhase
from jobs.models.priority_class import PreemptionPolicy, PriorityClass
from jobs.models.secret import Secret, SecretType
from jobs.models.training_job import MPIJob, PyTorchJob, TFJob, TrainingJob, training_models

__all__ = [
    "Command",
    "CommandAction",
    "DelayedAction",
    "Event",
    "EventType",
    "Job",
    "JobPhase",
    "MPIJob",
    "Pod",
    "PodEviction",
    "PodGroup",
    "PodGroupPhase",
    "PodPhase",
    "PreemptionPolicy",
    "PriorityClass",
    "PyTorchJob",
    "Secret",
    "SecretType",
    "TFJob",
    "TargetKind",
    "TaskSpec",
    "TaskStatus",
    "TrainingJob",
    "training_models",
]
