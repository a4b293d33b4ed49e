"""Pod (v1): one replica of a task, with its canonical requests, node and phase.

Requests are kept twice on purpose: ``requests`` holds every resource as
milli-units (JSON), and the three the console sums most (cpu, memory,
nvidia.com/gpu) are BIGINT columns so ``SUM()`` in SQL is exact and indexed.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from core.models import Node
from kube.models import KubeObject

__all__ = ["Pod", "PodPhase", "TaskStatus"]


class PodPhase(models.TextChoices):
    """Kubernetes pod phases."""

    PENDING = "Pending"
    RUNNING = "Running"
    SUCCEEDED = "Succeeded"
    FAILED = "Failed"
    UNKNOWN = "Unknown"


class TaskStatus(models.TextChoices):
    """The scheduler's finer status of a pod between Pending and Running (Volcano's TaskStatus)."""

    ALLOCATED = "Allocated"
    PIPELINED = "Pipelined"
    BINDING = "Binding"
    BOUND = "Bound"
    RELEASING = "Releasing"


class Pod(KubeObject):
    """A pod the job controller created for one task replica (``<job>-<task>-<index>``)."""

    job = models.ForeignKey(
        "jobs.Job", null=True, blank=True, on_delete=models.CASCADE, related_name="pods"
    )
    task_name = models.CharField(max_length=63, blank=True)
    task_index = models.PositiveIntegerField(default=0)
    pod_group = models.ForeignKey(
        "queues.PodGroup", null=True, blank=True, on_delete=models.SET_NULL, related_name="pods"
    )
    # Not indexed, on purpose: a bind then changes no indexed column, so on PostgreSQL it is a
    # HOT update (the new row version goes in the same page, no index is touched) in a table
    # whose pages keep room for them (migration 0007). 10,000 binds: 115 ms → 38 ms. Lookups
    # by node (a node's pods, a node going down) go through ``pod_phase`` or a scan.
    # No database constraint either, as ``spec.nodeName`` is a plain reference in Kubernetes:
    # the constraint's check of every bound row at commit cost 45 ms per 10,000 binds, and the
    # scheduler already holds each target node's row lock while it binds. Deleting a node
    # takes that lock first (``core.node_deletion``), then unbinds its pods, so a session
    # binding to it meanwhile is either waited for and unbound, or finds the node gone and
    # binds nothing. ``node_name`` reads a pod whose node is gone as bound to no node.
    node = models.ForeignKey(
        Node,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="pods",
        db_index=False,
        db_constraint=False,
    )
    spec = models.JSONField(default=dict, blank=True, help_text="PodSpec from the task template")
    requests = models.JSONField(default=dict, blank=True, help_text="resource → milli-units")
    cpu_milli = models.PositiveBigIntegerField(default=0)
    memory_milli = models.PositiveBigIntegerField(default=0)
    gpu_milli = models.PositiveBigIntegerField(default=0)
    priority = models.IntegerField(default=0)
    scheduler_name = models.CharField(max_length=253, default="volcano")

    phase = models.CharField(max_length=16, choices=PodPhase.choices, default=PodPhase.PENDING)
    task_status = models.CharField(max_length=16, choices=TaskStatus.choices, blank=True)
    reason = models.CharField(max_length=256, blank=True)
    message = models.TextField(blank=True)
    exit_code = models.IntegerField(null=True, blank=True)
    start_time = models.DateTimeField(null=True, blank=True)
    finish_time = models.DateTimeField(null=True, blank=True)
    deletion_time = models.DateTimeField(null=True, blank=True)
    # The simulated kubelet's container state (kubelet.runtime, core.container_lifecycle),
    # shown as status.containerStatuses and the Ready conditions (core.manifests.pod_status).
    running_since = models.DateTimeField(
        null=True, blank=True, help_text="when the current container started running"
    )
    run_until = models.DateTimeField(
        null=True, blank=True, help_text="when the running container's simulated run ends"
    )
    restart_count = models.PositiveIntegerField(default=0)
    back_off_until = models.DateTimeField(
        null=True, blank=True, help_text="CrashLoopBackOff: when the container restarts"
    )
    back_off_seconds = models.FloatField(default=0.0, help_text="the last back-off delay")
    last_state = models.JSONField(
        default=dict, blank=True, help_text="containerStatuses[].lastState (the last crash)"
    )
    deletion_grace_seconds = models.PositiveIntegerField(
        null=True, blank=True, help_text="metadata.deletionGracePeriodSeconds of a deletion"
    )
    # Written by the scheduler's apply: why the pod waits (PodScheduled) and its pipelined node.
    conditions = models.JSONField(default=list, blank=True, help_text="status.conditions")
    nominated_node_name = models.CharField(max_length=253, blank=True)
    # status.podIP: given by the simulated kubelet when the pod starts, from its node's
    # podCIDR (``core.network``); kept once the pod ended, as the kubelet reports it.
    pod_ip = models.CharField(max_length=45, blank=True)

    class Meta:
        ordering = ["namespace", "name"]
        constraints = [
            models.UniqueConstraint(fields=["namespace", "name"], name="pod_unique_name"),
            models.CheckConstraint(condition=Q(phase__in=PodPhase.values), name="pod_phase_valid"),
            models.CheckConstraint(
                condition=Q(task_status__in=["", *TaskStatus.values]), name="pod_task_status_valid"
            ),
        ]
        indexes = [
            models.Index(fields=["phase"], name="pod_phase"),
            # The simulated kubelet's timers (``kubelet.runtime``): a tick reads only the pods
            # whose run, back-off or deletion is due, not every running pod (200,000 at XL).
            # Partial, so they hold only what can be due; a bind changes none of their columns
            # (nor their conditions), so it stays a HOT update on PostgreSQL.
            # The phase first: SQLite, without statistics, then prefers them to ``pod_phase``.
            models.Index(
                fields=["phase", "run_until"], condition=Q(phase="Running"), name="pod_run_until"
            ),
            models.Index(
                fields=["phase", "back_off_until"],
                condition=Q(back_off_until__isnull=False),
                name="pod_back_off_until",
            ),
            models.Index(
                fields=["deletion_time"],
                condition=Q(deletion_time__isnull=False),
                name="pod_deletion_time",
            ),
        ]

    @property
    def node_name(self) -> str:
        """``spec.nodeName``: the bound node's name; "" if unbound or the node is gone."""
        if self.node_id is None:
            return ""
        try:
            return self.node.name  # type: ignore[union-attr]  # node_id is set
        except Node.DoesNotExist:
            return ""
