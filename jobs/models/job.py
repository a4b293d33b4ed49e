"""Job (batch.volcano.sh/v1alpha1) and its TaskSpecs: the whole spec and the status.

Structured parts Volcano keeps as nested objects (lifecycle policies, job
plugins, volumes, a task's pod template, dependsOn) are JSON columns in their
wire shape; scalars the console filters and sorts by are real columns.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from kube.models import KubeObject
from kube.validators import validate_dns1123_label

__all__ = ["WAITING_PHASES", "Job", "JobPhase", "TaskSpec"]


class JobPhase(models.TextChoices):
    """Volcano's ten job phases; empty means the controller has not initialised the job."""

    PENDING = "Pending"
    ABORTING = "Aborting"
    ABORTED = "Aborted"
    RUNNING = "Running"
    RESTARTING = "Restarting"
    COMPLETING = "Completing"
    COMPLETED = "Completed"
    TERMINATING = "Terminating"
    TERMINATED = "Terminated"
    FAILED = "Failed"


# The phases in which a job waits to run: new (the controller has not initialised it; Volcano
# takes an empty phase as Pending), Pending (its PodGroup waits for enqueue, or its gang for
# room), and Restarting (its old pods are torn down, then it is Pending again without anyone
# acting). None of them holds its gang. The jobs list, a queue's line, a job's page and the
# Overview all count these as waiting.
WAITING_PHASES: tuple[str, ...] = ("", JobPhase.PENDING, JobPhase.RESTARTING)


class Job(KubeObject):
    """A Volcano job: tasks of pod replicas scheduled as a gang in one queue."""

    # Who submitted it (the console's "my jobs"); not part of the manifest, as in Kubernetes,
    # where it would live in the audit log.
    creator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        editable=False,
    )
    # spec
    scheduler_name = models.CharField(max_length=253, default="volcano")
    min_available = models.PositiveIntegerField(default=0)
    min_success = models.PositiveIntegerField(null=True, blank=True)
    queue = models.CharField(max_length=63, default="default")
    priority_class_name = models.CharField(max_length=253, blank=True)
    max_retry = models.PositiveIntegerField(default=3)
    ttl_seconds_after_finished = models.PositiveIntegerField(null=True, blank=True)
    policies = models.JSONField(default=list, blank=True, help_text="[{event(s), action, ...}]")
    plugins = models.JSONField(default=dict, blank=True, help_text="{plugin: [arguments]}")
    volumes = models.JSONField(default=list, blank=True, help_text="[{mountPath, ...}]")
    # {mode, highestTierAllowed, highestTierName}; the controller copies it to the PodGroup.
    network_topology = models.JSONField(
        null=True, blank=True, help_text="{mode, highestTierAllowed | highestTierName}"
    )

    # status
    phase = models.CharField(max_length=16, choices=JobPhase.choices, blank=True)
    reason = models.CharField(max_length=256, blank=True)
    message = models.TextField(blank=True)
    last_transition_time = models.DateTimeField(null=True, blank=True)
    pending = models.PositiveIntegerField(default=0)
    running = models.PositiveIntegerField(default=0)
    succeeded = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    terminating = models.PositiveIntegerField(default=0)
    unknown = models.PositiveIntegerField(default=0)
    retry_count = models.PositiveIntegerField(default=0)
    version = models.PositiveIntegerField(default=0)
    status_min_available = models.PositiveIntegerField(default=0)
    conditions = models.JSONField(default=list, blank=True)
    task_status_count = models.JSONField(default=dict, blank=True)
    controlled_resources = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["namespace", "name"]
        constraints = [
            models.UniqueConstraint(fields=["namespace", "name"], name="job_unique_name"),
            models.CheckConstraint(
                condition=Q(phase__in=["", *JobPhase.values]), name="job_phase_valid"
            ),
            models.CheckConstraint(condition=~Q(name=""), name="job_name_not_empty"),
            models.CheckConstraint(
                condition=Q(min_success__isnull=True) | Q(min_success__gte=1),
                name="job_min_success_positive",
            ),
        ]
        indexes = [models.Index(fields=["queue", "phase"], name="job_queue_phase")]


class TaskSpec(models.Model):
    """One task of a job: ``replicas`` pods rendered from ``template``."""

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="tasks")
    index = models.PositiveIntegerField(help_text="Position in spec.tasks")
    name = models.CharField(max_length=63, validators=[validate_dns1123_label])
    replicas = models.PositiveIntegerField(default=0)
    min_available = models.PositiveIntegerField(null=True, blank=True)
    max_retry = models.PositiveIntegerField(null=True, blank=True)
    template = models.JSONField(default=dict, blank=True, help_text="PodTemplateSpec")
    policies = models.JSONField(default=list, blank=True)
    depends_on = models.JSONField(null=True, blank=True, help_text="{name: [...], iteration}")
    topology_policy = models.CharField(max_length=32, blank=True)
    # {totalPartitions, partitionSize, minPartitions, networkTopology}: the task's pods in
    # groups of partitionSize, each a subGroupPolicy of the job's PodGroup.
    partition_policy = models.JSONField(
        null=True, blank=True, help_text="{totalPartitions, partitionSize, minPartitions, ...}"
    )

    class Meta:
        ordering = ["job", "index"]
        constraints = [
            models.UniqueConstraint(fields=["job", "name"], name="task_unique_name"),
            models.UniqueConstraint(fields=["job", "index"], name="task_unique_index"),
        ]

    def __str__(self) -> str:
        return self.name
