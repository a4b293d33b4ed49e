"""Writes to jobs' rows (HackSoft style: ``<entity>_<verb>(*, ...)``).

The console never moves a job between phases itself: it issues a bus Command,
which the job controller consumes (Volcano's vcctl ``job suspend/resume`` path).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

from django.db import transaction

from jobs.admission import admit_job, admit_pod_group
from jobs.manifests.job import JobKind
from jobs.models import Command, CommandAction, Job, PodGroup, TargetKind, TaskSpec
from scheduler.manifest_kinds import Loaded

__all__ = ["command_issue", "job_submit", "job_update", "pod_group_create"]


def job_submit(
    *, manifest: Mapping[str, Any] | Loaded | Job, tasks: list[TaskSpec] | None = None
) -> Job:
    """Admit a new job (a manifest, or a Job with ``tasks``) and store it with its tasks.

    Raises ``jobs.admission.AdmissionError`` naming every bad field; then nothing is stored.
    """
    with transaction.atomic():
        loaded = admit_job(manifest, tasks=tasks)
        kind = JobKind()
        job: Job = kind.new_row(loaded)
        job.uid = None  # a new object gets a new uid
        kind.validate(job)
        job.save()
        kind.save_children(job, loaded.children)
    return job


def job_update(*, job: Job, manifest: Mapping[str, Any] | Loaded) -> Job:
    """Apply an update to a stored job: only the fields Volcano lets change may differ."""
    with transaction.atomic():
        stored = Job.objects.select_for_update().get(pk=job.pk)
        loaded = admit_job(manifest, old=stored)
        kind = JobKind()
        for name in kind.spec_fields:
            setattr(stored, name, getattr(loaded.instance, name))
        kind.validate(stored)
        stored.save()
        kind.save_children(stored, loaded.children)
    return stored


def pod_group_create(*, manifest: Mapping[str, Any] | Loaded | PodGroup) -> PodGroup:
    """Admit and store a PodGroup (its queue must exist and be Open)."""
    with transaction.atomic():
        group: PodGroup = admit_pod_group(manifest).instance
        group.uid = None
        group.save()
    return group


def command_issue(*, job: Job, action: CommandAction, issuer: Any | None = None) -> Command:
    """Create a Command asking the controller to apply ``action`` to ``job``."""
    # Like metadata.generateName: a readable prefix and a random suffix.
    name = f"{job.name[:200]}-{action.lower()}-{secrets.token_hex(3)}"
    return Command.objects.create(
        namespace=job.namespace,
        name=name,
        action=action,
        target_kind=TargetKind.JOB,
        target_name=job.name,
        target_uid=job.uid,
        issuer=issuer if issuer is not None and issuer.is_authenticated else None,
    )
