"""What the console does to workflows, through the API's own paths (admission, change stream).

Suspending or resuming a CronJob is a merge patch of ``spec.suspend``, as ``kubectl patch``
would send; "Run now" is what ``kubectl create job --from=cronjob/<name>`` does: a job of the
template, annotated ``cronjob.kubernetes.io/instantiate: manual`` and owned by the cron job,
which lists it among its active jobs.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction

from flow.api.resources import CRONJOBS, JOBFLOWS
from flow.controller.cronjob import MANUAL_ANNOTATION, job_from_template, next_run, reference
from flow.models import CronJob, JobFlow
from jobs.api.resources import JOBS
from jobs.models import Job
from kube.bodies import MERGE_PATCH
from kube.store import generate_name, object_create, object_delete, object_patch

__all__ = [
    "cron_job_delete",
    "cron_job_run_now",
    "cron_job_suspend",
    "job_flow_delete",
    "next_run",
]


def cron_job_suspend(*, cron: CronJob, suspend: bool, user: Any | None = None) -> CronJob:
    """Suspend (or resume) ``cron``: no new jobs while suspended; active ones go on."""
    del user  # the audit log records who acts (``kube.actor``)
    with transaction.atomic():
        stored = CronJob.objects.select_for_update().get(pk=cron.pk)
        object_patch(CRONJOBS, stored, {"spec": {"suspend": suspend}},
                     content_type=MERGE_PATCH, dry_run=False)  # fmt: skip
    stored.refresh_from_db()
    return stored


def cron_job_run_now(
    *, cron: CronJob, user: Any | None = None, now: dt.datetime | None = None
) -> Job:
    """Make a job of ``cron``'s template now, outside its schedule; return it."""
    del now
    name = generate_name(f"{cron.name}-manual-")
    manifest = job_from_template(cron, name, {MANUAL_ANNOTATION: "manual"})
    with transaction.atomic():
        object_create(JOBS, manifest, namespace=cron.namespace, dry_run=False, user=user)
        job = Job.objects.get(namespace=cron.namespace, name=name)
        stored = CronJob.objects.select_for_update().get(pk=cron.pk)
        stored.active = [*stored.active, reference(job)]
        stored.save(update_fields=["active"])
    return job


def cron_job_delete(*, cron: CronJob) -> None:
    """Delete ``cron``; the jobs it made go with it (they are owned by it)."""
    with transaction.atomic():
        stored = CronJob.objects.select_for_update().get(pk=cron.pk)
        object_delete(CRONJOBS, stored, dry_run=False)


def job_flow_delete(*, flow: JobFlow) -> None:
    """Delete ``flow``; the jobs it made go with it (they are owned by it)."""
    with transaction.atomic():
        stored = JobFlow.objects.select_for_update().get(pk=flow.pk)
        object_delete(JOBFLOWS, stored, dry_run=False)
