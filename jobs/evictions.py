"""A job's pod deleted by anyone but its controller is an eviction (Volcano's ``PodEvicted``).

Volcano's job controller raises ``PodEvicted`` for every deleted pod of a job it did not
delete itself, so the job's and task's policies apply (RestartJob, AbortJob, ...). Deleting
a row leaves nothing for our level-triggered controller to observe, so the delete paths that
are not the controller's call ``note_pod_deleted`` in their transaction: it locks the job
(serialising with a reconcile pass, which holds the same lock) and leaves a ``PodEviction``
row that the controller's next pass turns into the event.
"""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from core.models import Pod
from jobs.controller.context import JOB_VERSION
from jobs.models import Job, PodEviction

__all__ = ["note_pod_deleted"]


def note_pod_deleted(pod: Pod, now: dt.datetime | None = None) -> bool:
    """Record that ``pod`` is being deleted by someone other than its job's controller.

    Call inside the transaction that deletes it. Returns False (nothing recorded) for a pod
    of no job, or whose job is gone.
    """
    if pod.job_id is None:
        return False
    if not Job.objects.select_for_update().filter(pk=pod.job_id).exists():
        return False
    try:
        version = int(pod.annotations.get(JOB_VERSION, "0"))
    except (TypeError, ValueError):
        version = 0
    PodEviction.objects.create(
        job_id=pod.job_id,
        pod_name=pod.name,
        task_name=pod.task_name,
        version=version,
        deleted_at=now or timezone.now(),
    )
    return True
