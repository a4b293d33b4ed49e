"""ttlSecondsAfterFinished: delete a finished job once its TTL has passed (Volcano's GC).

Finished = Completed, Failed or Terminated (Aborted is not: it can be resumed).
The finish time is the last phase transition; the TTL is the cluster's (simulated) seconds
(``kube.clock``). The row is locked and re-read
by the caller in the same transaction, and deleted by primary key, so a job
re-created with the same name (a new uid) is never taken by mistake.
"""

from __future__ import annotations

import datetime as dt

from jobs.controller.context import FINISHED_PHASES
from jobs.models import Job
from kube import clock

__all__ = ["ttl_expired"]


def ttl_expired(job: Job, now: dt.datetime) -> bool:
    """Return whether ``job`` is finished and its ``ttlSecondsAfterFinished`` has passed."""
    if job.ttl_seconds_after_finished is None or job.phase not in FINISHED_PHASES:
        return False
    finished = job.last_transition_time
    if finished is None:
        return False
    return finished + clock.real(job.ttl_seconds_after_finished) <= now
