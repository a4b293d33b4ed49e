"""Helpers for the workflow tests: templates, flows and cron jobs created as the API creates
them, and jobs moved to a phase as the job controller would."""

from __future__ import annotations

import datetime as dt
from typing import Any

from core.models import Namespace
from flow.api.resources import CRONJOBS, JOBFLOWS, JOBTEMPLATES
from flow.models import CronJob, JobFlow, JobTemplate
from jobs.models import Job
from kube.store import object_create

NOW = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.UTC)


def job_spec(task: str = "main", replicas: int = 1, **extra: Any) -> dict[str, Any]:
    """Return a Volcano Job spec of one task of ``replicas`` busybox pods."""
    container = {"name": task, "image": "busybox", "command": ["sleep", "10"],
                 "resources": {"requests": {"cpu": "1"}}}  # fmt: skip
    return {
        "minAvailable": replicas,
        "queue": "default",
        "tasks": [{"name": task, "replicas": replicas,
                   "template": {"spec": {"containers": [container]}}}],
        **extra,
    }  # fmt: skip


def template(name: str, **spec: Any) -> JobTemplate:
    """Create the JobTemplate ``name`` in ``default`` through the API's create path."""
    Namespace.objects.get_or_create(name="default")
    manifest = {"apiVersion": "flow.volcano.sh/v1alpha1", "kind": "JobTemplate",
                "metadata": {"name": name}, "spec": job_spec(**spec)}  # fmt: skip
    object_create(JOBTEMPLATES, manifest, namespace="default", dry_run=False)
    return JobTemplate.objects.get(namespace="default", name=name)


def flow(name: str, steps: list[dict[str, Any]], retain: str = "retain") -> JobFlow:
    """Create the JobFlow ``name`` in ``default`` through the API's create path."""
    Namespace.objects.get_or_create(name="default")
    manifest = {"apiVersion": "flow.volcano.sh/v1alpha1", "kind": "JobFlow",
                "metadata": {"name": name},
                "spec": {"jobRetainPolicy": retain, "flows": steps}}  # fmt: skip
    object_create(JOBFLOWS, manifest, namespace="default", dry_run=False)
    return JobFlow.objects.get(namespace="default", name=name)


def cron_job(name: str, schedule: str, **spec: Any) -> CronJob:
    """Create the CronJob ``name`` in ``default`` through the API's create path."""
    Namespace.objects.get_or_create(name="default")
    manifest = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "CronJob",
                "metadata": {"name": name},
                "spec": {"schedule": schedule, "jobTemplate": {"spec": job_spec()}, **spec}}  # fmt: skip
    object_create(CRONJOBS, manifest, namespace="default", dry_run=False)
    return CronJob.objects.get(namespace="default", name=name)


def set_phase(name: str, phase: str, at: dt.datetime = NOW, **status: Any) -> None:
    """Move job ``name`` to ``phase`` at ``at``, as the job controller writes it (a save: the
    change stream hears of it, as of every write the controller makes)."""
    job = Job.objects.get(namespace="default", name=name)
    fields = {"phase": phase, "last_transition_time": at, **status}
    for field, value in fields.items():
        setattr(job, field, value)
    job.save(update_fields=list(fields))


def jobs() -> list[str]:
    """Return the names of the jobs in ``default``, sorted."""
    return sorted(Job.objects.filter(namespace="default").values_list("name", flat=True))
