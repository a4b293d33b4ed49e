"""Kubeflow training jobs (kubeflow.org/v1): PyTorchJob, TFJob and MPIJob.

Each kind is its own table (one concrete model per kind over one abstract base) so
that the Kubernetes API layer serves each at its own path with nothing special:
its queryset, its change stream for watches and its name uniqueness are the
model's own, as three CRDs are three resources in Kubernetes. The spec is kept
as written (with the training operator's defaults filled in) in one JSON column;
the queue and priority class from ``runPolicy.schedulingPolicy`` are columns too,
for the console's filters. The status is the training operator's: conditions
(Created, Running, Restarting, Succeeded, Failed), per-replica-type counts and
the times; ``restarts`` counts the pods the controller restarted (backoffLimit).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from kube.models import KubeObject

__all__ = ["MPIJob", "PyTorchJob", "TFJob", "TrainingJob", "training_models"]


class TrainingJob(KubeObject):
    """Abstract base of the three Kubeflow kinds: spec as JSON, the operator's status."""

    creator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        editable=False,
    )
    spec = models.JSONField(default=dict, blank=True, help_text="replica specs and runPolicy")
    queue = models.CharField(max_length=63, blank=True)
    priority_class_name = models.CharField(max_length=253, blank=True)

    # status
    conditions = models.JSONField(default=list, blank=True)
    replica_statuses = models.JSONField(default=dict, blank=True)
    start_time = models.DateTimeField(null=True, blank=True)
    completion_time = models.DateTimeField(null=True, blank=True)
    last_reconcile_time = models.DateTimeField(null=True, blank=True)
    restarts = models.PositiveIntegerField(default=0)

    class Meta:
        abstract = True
        ordering = ["namespace", "name"]

    @property
    def state(self) -> str:
        """Return the type of the last condition (kubectl's STATE column), "" before any."""
        return str(self.conditions[-1]["type"]) if self.conditions else ""

    @property
    def finished(self) -> bool:
        """Return whether the job Succeeded or Failed (its condition is True)."""
        return any(
            c.get("type") in ("Succeeded", "Failed") and c.get("status") == "True"
            for c in self.conditions
        )


class PyTorchJob(TrainingJob):
    """A PyTorchJob: Master and Worker replicas wired by MASTER_ADDR, WORLD_SIZE, RANK."""

    class Meta(TrainingJob.Meta):
        constraints = [
            models.UniqueConstraint(fields=["namespace", "name"], name="pytorchjob_unique_name")
        ]


class TFJob(TrainingJob):
    """A TFJob: PS, Worker, Chief, Master and Evaluator replicas wired by TF_CONFIG."""

    class Meta(TrainingJob.Meta):
        constraints = [
            models.UniqueConstraint(fields=["namespace", "name"], name="tfjob_unique_name")
        ]


class MPIJob(TrainingJob):
    """An MPIJob: one Launcher and Workers listed in the launcher's hostfile."""

    class Meta(TrainingJob.Meta):
        constraints = [
            models.UniqueConstraint(fields=["namespace", "name"], name="mpijob_unique_name")
        ]


def training_models() -> tuple[type[TrainingJob], ...]:
    """Return the three concrete kinds, in a stable order."""
    return (PyTorchJob, TFJob, MPIJob)
