"""Command (bus.volcano.sh/v1alpha1): a request to act on a job or a queue.

The console never changes a job's phase itself: it writes a Command (AbortJob,
ResumeJob, ...) and the job controller consumes it, as Volcano's vcctl does.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from kube.models import KubeObject
from queues.models import QueueAction

__all__ = ["Command", "CommandAction", "TargetKind"]


class CommandAction(models.TextChoices):
    """Actions a Command may carry (Volcano's bus actions used by UIs and the CLI)."""

    ABORT_JOB = "AbortJob"
    RESUME_JOB = "ResumeJob"
    RESTART_JOB = "RestartJob"
    TERMINATE_JOB = "TerminateJob"
    COMPLETE_JOB = "CompleteJob"
    # The queue controller's own actions (``queues.models``), which the job controller takes
    # for it (``jobs.controller.queue_commands``).
    OPEN_QUEUE = QueueAction.OPEN_QUEUE.value
    CLOSE_QUEUE = QueueAction.CLOSE_QUEUE.value


class TargetKind(models.TextChoices):
    """The kind of object a Command acts on."""

    JOB = "Job"
    QUEUE = "Queue"


class Command(KubeObject):
    """One command; its controller deletes it before acting on it (at most once, as Volcano).

    ``processed``/``processed_at`` are kept for rows of earlier versions, which marked a
    taken Command instead of deleting it; the controllers only take unprocessed ones.
    """

    action = models.CharField(max_length=16, choices=CommandAction.choices)
    target_kind = models.CharField(
        max_length=16, choices=TargetKind.choices, default=TargetKind.JOB
    )
    target_name = models.CharField(max_length=253)
    target_uid = models.UUIDField(null=True, blank=True)
    reason = models.CharField(max_length=256, blank=True)
    message = models.TextField(blank=True)
    issuer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="commands",
    )
    processed = models.BooleanField(default=False)
    processed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["namespace", "name"], name="command_unique_name"),
            models.CheckConstraint(
                condition=Q(action__in=CommandAction.values), name="command_action_valid"
            ),
            models.CheckConstraint(
                condition=Q(target_kind__in=TargetKind.values), name="command_target_kind_valid"
            ),
        ]
        indexes = [models.Index(fields=["processed", "created_at"], name="command_unprocessed")]
