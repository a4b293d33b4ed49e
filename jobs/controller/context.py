"""What one reconcile pass knows about a job: its rows, the counts, and what it changed.

A pass reads the job (locked), its tasks, its pods and its PodGroup once into a
``JobContext``; the primitives (``actions.py``) then edit rows through it and
keep the pod counts Volcano's status carries (a pod deleted in this pass counts
as terminating, as in Volcano's KillJob).
"""

from __future__ import annotations

import copy
import datetime as dt
import logging
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from django.db import DatabaseError, transaction

from core.events import record_event
from core.models import (
    ClassTable,
    Event,
    EventType,
    Pod,
    PodPhase,
    Secret,
    priority_class_table,
    priority_class_values,
)
from jobs.controller import delete_retries
from jobs.models import Job, JobPhase, TaskSpec
from kube import failpoints
from queues.models import PodGroup

logger = logging.getLogger(__name__)

__all__ = ["FINISHED_PHASES", "JobContext", "StatusCounts"]

FINISHED_PHASES = frozenset({JobPhase.COMPLETED, JobPhase.FAILED, JobPhase.TERMINATED})
JOB_VERSION = "volcano.sh/job-version"
# Every Job column the controller writes (status, plus the version and retry count).
STATUS_FIELD_NAMES = (
    "phase",
    "reason",
    "message",
    "last_transition_time",
    "pending",
    "running",
    "succeeded",
    "failed",
    "terminating",
    "unknown",
    "retry_count",
    "version",
    "status_min_available",
    "conditions",
    "task_status_count",
    "controlled_resources",
)


@dataclass
class StatusCounts:
    """Pod counts of the status being built (Volcano's JobStatus counters)."""

    pending: int = 0
    running: int = 0
    succeeded: int = 0
    failed: int = 0
    terminating: int = 0
    unknown: int = 0
    by_task: dict[str, Counter[str]] = field(default_factory=dict)

    def count(self, pod: Pod) -> None:
        """Count ``pod`` by its phase (a pod being deleted counts as terminating)."""
        if pod.deletion_time is not None:
            self.terminating += 1
            return
        name = {
            PodPhase.PENDING: "pending",
            PodPhase.RUNNING: "running",
            PodPhase.SUCCEEDED: "succeeded",
            PodPhase.FAILED: "failed",
        }.get(PodPhase(pod.phase), "unknown")
        setattr(self, name, getattr(self, name) + 1)
        self.by_task.setdefault(pod.task_name, Counter())[pod.phase] += 1


@dataclass
class JobContext:
    """One job's rows for one reconcile pass, and the pass's bookkeeping."""

    job: Job
    tasks: list[TaskSpec]
    pods: dict[str, Pod]
    pod_group: PodGroup | None
    now: dt.datetime
    counts: StatusCounts = field(default_factory=StatusCounts)
    changed: bool = False
    transitions: list[str] = field(default_factory=list)
    ssh_secret: Secret | None = None  # the ssh Secret this pass read or wrote, if any
    finalized_evictions: int = 0  # evicted pods whose rows this pass removed (terminating)
    created: int = 0
    deleted: int = 0
    # Pods whose delete failed this pass (or waits out a backoff), with the error ("" if untried).
    failed_deletes: dict[str, str] = field(default_factory=dict)
    # Every PriorityClass, as the pass read them (the pods this pass makes take their class).
    priority_classes: ClassTable | None = None
    stored_status: dict[str, Any] = field(default_factory=dict)
    # PriorityClass name → value, and the global default's value (read once per pass).
    classes: dict[str, int] | None = None
    default_priority: int = 0
    # The messages of the job's PodGroupPending warnings, when the pass read them for a batch
    # of jobs beforehand (``reconcile_all``); None: ``record_pod_group_pending`` asks.
    pending_warnings: set[str] | None = None
    # Every Event about the job (by name), when the pass read them for a batch of jobs; the
    # events it records are matched against these instead of read one at a time (None: read).
    events: list[Event] | None = None

    def __post_init__(self) -> None:
        self.stored_status = self.status_of(self.job)
        if self.classes is None:
            self.classes, self.default_priority = priority_class_values()

    @staticmethod
    def status_of(job: Job) -> dict[str, Any]:
        """Return the job's status fields as stored (to write only what changed)."""
        return {name: copy.deepcopy(getattr(job, name)) for name in STATUS_FIELD_NAMES}

    @property
    def replicas(self) -> int:
        """Return Σ task replicas."""
        return sum(task.replicas for task in self.tasks)

    @property
    def pod_group_name(self) -> str:
        """Return Volcano's PodGroup name for this job: ``<job>-<uid>``."""
        return f"{self.job.name}-{self.job.uid}"

    def task(self, name: str) -> TaskSpec | None:
        """Return the task called ``name``."""
        return next((task for task in self.tasks if task.name == name), None)

    def pod_version(self, pod: Pod) -> int:
        """Return the job version a pod was created for (its ``volcano.sh/job-version``)."""
        try:
            return int(pod.annotations.get(JOB_VERSION, "0"))
        except ValueError:
            return 0

    def class_table(self) -> ClassTable:
        """Return every PriorityClass (read once per pass of this job, when pods are made)."""
        if self.priority_classes is None:
            self.priority_classes = priority_class_table()
        return self.priority_classes

    def delete_pod(self, pod: Pod) -> bool:
        """Delete ``pod`` now (grace period 0) and count it as terminating for this pass.

        A delete that fails is undone alone (a savepoint) and the pod still counts as
        terminating: the job moves on and waits for it, and the delete is retried after a
        backoff (``delete_retries``). Return whether the row went.
        """
        self.counts.terminating += 1
        if not delete_retries.due(self.job.uid, self.now):
            self.failed_deletes.setdefault(pod.name, "")  # backing off: not tried this pass
            return False
        try:
            with transaction.atomic():
                failpoints.hit("controller.pod-delete", pod.name)
                Pod.objects.filter(pk=pod.pk).delete()
        except (DatabaseError, failpoints.FailpointError) as exc:
            logger.warning("could not delete pod %s/%s: %s", pod.namespace, pod.name, exc)
            self.failed_deletes[pod.name] = f"{type(exc).__name__}: {exc}"
            return False
        self.pods.pop(pod.name, None)
        self.changed = True
        return True

    def delete_pod_group(self) -> bool:
        """Delete the job's PodGroup (every full kill does); return whether there was one."""
        if self.pod_group is None:
            return False
        PodGroup.objects.filter(pk=self.pod_group.pk).delete()
        self.pod_group = None
        self.changed = True
        return True

    def set_phase(self, phase: JobPhase, reason: str = "", message: str = "") -> None:
        """Move the job to ``phase``: stamp the time and a condition, and record an Event."""
        job = self.job
        if job.phase == phase:
            return
        previous = job.phase or "New"
        job.phase = phase
        job.reason = reason
        job.message = message
        job.last_transition_time = self.now
        stamp = self.now.astimezone(dt.UTC).replace(microsecond=0).isoformat()
        stamp = stamp.replace("+00:00", "Z")
        job.conditions = [c for c in job.conditions if c.get("status") != phase] + [
            {"status": str(phase), "lastTransitionTime": stamp}
        ]
        self.changed = True
        self.transitions.append(f"{previous}->{phase}")
        text = f"Job phase {previous} -> {phase}" + (f": {message or reason}" if reason else "")
        warning = phase in (JobPhase.FAILED, JobPhase.ABORTED)
        record_event(
            job,
            kind="Job",
            reason=str(phase),
            message=text,
            now=self.now,
            event_type=EventType.WARNING if warning else EventType.NORMAL,
            known=self.events,
        )
