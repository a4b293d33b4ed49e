"""Pod deletes that fail are retried with backoff; the job's state machine does not wait.

Volcano's killJob returns an error when a pod delete fails and requeues the job before writing
its status, so a job told to restart stays Running for as long as the deletes fail. Here a
delete that fails (a database error, a failpoint) is undone alone, inside a savepoint: the pass
goes on, the job moves to Restarting (or Aborting...), and the pod counts as terminating, so the
job waits in that phase until the pod is really gone. The job's deletes are then tried again
after a backoff that doubles from ``BASE`` up to ``CAP`` seconds of the controller's clock, and
once ``BUDGET`` attempts have failed the job gets one Warning event (``FailedDelete``) naming
the pods and the error; the retries go on at the cap, so the job converges when deletes succeed.

The backoff is kept by the process running the controller (the scheduling leader); a new
leader starts counting afresh, as a restarted Volcano controller's rate limiter does.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass, field

__all__ = ["BASE", "BUDGET", "CAP", "DeleteRetry", "clear", "due", "failed", "succeeded"]

BASE = 1.0
CAP = 60.0
BUDGET = 5


@dataclass
class DeleteRetry:
    """What failed for one job: how many attempts, when to try again, what the error said."""

    failures: int = 0
    next_at: dt.datetime | None = None
    pods: list[str] = field(default_factory=list)
    error: str = ""


_retries: dict[uuid.UUID, DeleteRetry] = {}


def due(job_uid: uuid.UUID | None, now: dt.datetime) -> bool:
    """Return whether the job's pod deletes may be tried now (none failed, or backoff over)."""
    retry = _retries.get(job_uid) if job_uid is not None else None
    return retry is None or retry.next_at is None or now >= retry.next_at


def failed(job_uid: uuid.UUID, now: dt.datetime, pods: list[str], error: str) -> DeleteRetry:
    """Count one failed attempt of the job's deletes; return the retry state after it."""
    retry = _retries.setdefault(job_uid, DeleteRetry())
    retry.failures += 1
    retry.pods, retry.error = sorted(pods), error
    delay = min(BASE * 2 ** (retry.failures - 1), CAP)
    retry.next_at = now + dt.timedelta(seconds=delay)
    return retry


def succeeded(job_uid: uuid.UUID | None) -> None:
    """Forget the job's failures: its deletes went through."""
    if job_uid is not None:
        _retries.pop(job_uid, None)


def clear() -> None:
    """Forget every job's failures (tests)."""
    _retries.clear()
