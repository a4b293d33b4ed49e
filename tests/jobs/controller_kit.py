"""Helpers for the job controller tests: submit a job, play scheduler and kubelet, tick.

The tests drive the controller as the rest of the system would: the scheduler
admits a PodGroup (phase Inqueue) and binds pods; the kubelet moves pods to
Running/Succeeded/Failed with an exit code, or an eviction sets ``deletion_time``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from core.models import Event, Namespace, Pod, PodPhase
from jobs.controller import JobResult, reconcile_job
from jobs.models import Job
from jobs.services import job_submit
from kube.changes import record_rows
from queues.models import PodGroup, PodGroupPhase

NOW = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.UTC)


def task(name: str, replicas: int = 1, **extra: Any) -> dict[str, Any]:
    """Return a task spec with one busybox container asking for one CPU."""
    container = {"name": "main", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}
    return {
        "name": name,
        "replicas": replicas,
        "template": {"spec": {"containers": [container], "restartPolicy": "Never"}},
        **extra,
    }


def submit(name: str = "job", tasks: list[dict[str, Any]] | None = None, **spec: Any) -> Job:
    """Create a job in ``default`` as the API does (the namespace made if a flush removed it)."""
    Namespace.objects.get_or_create(name="default")
    manifest = {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {"tasks": tasks or [task("worker", 2)], **spec},
    }
    return job_submit(manifest=manifest)


def tick(job: Job, at: dt.datetime = NOW) -> JobResult:
    """Run one reconcile pass of ``job`` and refresh it."""
    result = reconcile_job(job.pk, at)
    if Job.objects.filter(pk=job.pk).exists():
        job.refresh_from_db()
    return result


def admit(job: Job, phase: str = PodGroupPhase.INQUEUE) -> None:
    """Play the scheduler's enqueue: move the job's PodGroup past Pending."""
    assert PodGroup.objects.filter(job=job).update(phase=phase) == 1
    record_rows(PodGroup, PodGroup.objects.filter(job=job).values_list("pk", flat=True))


def pods(job: Job) -> dict[str, Pod]:
    """Return the job's pods by name."""
    return {pod.name: pod for pod in Pod.objects.filter(job=job)}


def set_pods(job: Job, phase: str, *names: str, exit_code: int | None = None) -> None:
    """Play the kubelet: move the named pods (default: all) to ``phase``."""
    rows = Pod.objects.filter(job=job)
    if names:
        rows = rows.filter(name__in=names)
    finished = phase in (PodPhase.SUCCEEDED, PodPhase.FAILED)
    for pod in rows:
        pod.phase = phase
        pod.exit_code = exit_code if finished else None
        pod.finish_time = NOW if finished else None
        pod.save()


def evict(job: Job, *names: str) -> None:
    """Play the scheduler's eviction: mark the pods for deletion."""
    Pod.objects.filter(job=job, name__in=names).update(deletion_time=NOW, reason="Evicted")
    record_rows(Pod, Pod.objects.filter(job=job, name__in=names).values_list("pk", flat=True))


def start(job: Job) -> None:
    """Take a new job to Running: sync, admit, create pods, run them all, sync."""
    tick(job)
    admit(job)
    tick(job)
    set_pods(job, PodPhase.RUNNING)
    tick(job)
    assert job.phase == "Running", job.phase


def event_reasons(job: Job) -> list[str]:
    """Return the reasons of the events recorded about ``job``, oldest first."""
    rows = Event.objects.filter(involved_kind="Job", involved_name=job.name)
    return list(rows.order_by("first_timestamp", "pk").values_list("reason", flat=True))
