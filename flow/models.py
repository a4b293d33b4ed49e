"""JobTemplate, JobFlow (``flow.volcano.sh/v1alpha1``) and CronJob (``batch.volcano.sh``).

Specs are kept as written, with the CRDs' defaults filled in, in JSON columns of their wire
shape (a template's Job spec, a flow's ``flows``, a cron job's ``jobTemplate``); scalars the
console filters or the controllers select by (a flow's phase, a cron job's schedule, suspend
and policy) are real columns. Status is the controllers' (``flow.controller``).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from kube.models import KubeObject

__all__ = [
    "ConcurrencyPolicy",
    "CronJob",
    "FlowPhase",
    "JobFlow",
    "JobTemplate",
    "RetainPolicy",
]


def _creator() -> models.ForeignKey:  # type: ignore[type-arg]
    """Who submitted the object (the console's "mine"); not part of the manifest."""
    return models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        editable=False,
    )


class JobTemplate(KubeObject):
    """A Volcano Job spec kept for flows to instantiate; it schedules nothing itself."""

    creator = _creator()
    spec = models.JSONField(default=dict, blank=True, help_text="a Volcano JobSpec")
    # status: the names of the jobs made from this template, as Volcano's
    # jobtemplate controller records them.
    job_depends_on_list = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["namespace", "name"]
        constraints = [
            models.UniqueConstraint(fields=["namespace", "name"], name="jobtemplate_unique_name")
        ]


class RetainPolicy(models.TextChoices):
    """What happens to a flow's jobs once the flow finished (Volcano's ``jobRetainPolicy``)."""

    RETAIN = "retain"
    DELETE = "delete"


class FlowPhase(models.TextChoices):
    """A JobFlow's ``status.state.phase``; empty until the controller first saw it."""

    PENDING = "Pending"
    RUNNING = "Running"
    SUCCEED = "Succeed"
    TERMINATING = "Terminating"
    FAILED = "Failed"


class JobFlow(KubeObject):
    """Steps (``flows``) that each make a Volcano Job from the template of the same name."""

    creator = _creator()
    flows = models.JSONField(default=list, blank=True, help_text="[{name, dependsOn, patch}]")
    job_retain_policy = models.CharField(
        max_length=8, choices=RetainPolicy.choices, default=RetainPolicy.RETAIN
    )
    # status
    phase = models.CharField(max_length=16, choices=FlowPhase.choices, blank=True)
    pending_jobs = models.JSONField(default=list, blank=True)
    running_jobs = models.JSONField(default=list, blank=True)
    failed_jobs = models.JSONField(default=list, blank=True)
    completed_jobs = models.JSONField(default=list, blank=True)
    terminated_jobs = models.JSONField(default=list, blank=True)
    unknown_jobs = models.JSONField(default=list, blank=True)
    job_status_list = models.JSONField(default=list, blank=True)
    conditions = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["namespace", "name"]
        constraints = [
            models.UniqueConstraint(fields=["namespace", "name"], name="jobflow_unique_name")
        ]
        indexes = [models.Index(fields=["phase"], name="jobflow_phase")]


class ConcurrencyPolicy(models.TextChoices):
    """How a CronJob treats a run that is due while an earlier one is still active."""

    ALLOW = "Allow"
    FORBID = "Forbid"
    REPLACE = "Replace"


class CronJob(KubeObject):
    """A Volcano Job made from ``job_template`` at each time ``schedule`` names."""

    creator = _creator()
    schedule = models.CharField(max_length=253)
    time_zone = models.CharField(max_length=253, blank=True)
    starting_deadline_seconds = models.BigIntegerField(null=True, blank=True)
    concurrency_policy = models.CharField(
        max_length=8, choices=ConcurrencyPolicy.choices, default=ConcurrencyPolicy.ALLOW
    )
    suspend = models.BooleanField(default=False)
    successful_jobs_history_limit = models.IntegerField(default=3)
    failed_jobs_history_limit = models.IntegerField(default=1)
    job_template = models.JSONField(default=dict, blank=True, help_text="{metadata, spec}")
    # status
    active = models.JSONField(default=list, blank=True, help_text="[ObjectReference]")
    last_schedule_time = models.DateTimeField(null=True, blank=True)
    last_successful_time = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["namespace", "name"]
        constraints = [
            models.UniqueConstraint(fields=["namespace", "name"], name="cronjob_unique_name")
        ]
