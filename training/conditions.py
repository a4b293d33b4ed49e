"""The training operator's job conditions: Created, Running, Restarting, Succeeded, Failed.

``set_condition`` is the operator's ``updateJobConditions``: a condition of the same type,
status and reason changes nothing; otherwise the old one of that type goes and the new
one is appended last (so the last condition is the job's state, kubectl's STATE column).
Running and Restarting replace each other, and a job that ends turns Running to False.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from apis.wire import format_time
from training.models import TrainingJob

__all__ = [
    "CREATED",
    "FAILED",
    "RESTARTING",
    "RUNNING",
    "SUCCEEDED",
    "has_condition",
    "set_condition",
]

CREATED = "Created"
RUNNING = "Running"
RESTARTING = "Restarting"
SUCCEEDED = "Succeeded"
FAILED = "Failed"


def has_condition(job: TrainingJob, kind: str) -> bool:
    """Return whether ``job`` has condition ``kind`` with status True."""
    return any(c.get("type") == kind and c.get("status") == "True" for c in job.conditions)


def set_condition(job: TrainingJob, kind: str, reason: str, message: str, now: dt.datetime) -> bool:
    """Set condition ``kind`` (status True) on ``job``; return whether anything changed."""
    for condition in job.conditions:
        same = (condition.get("type"), condition.get("status"), condition.get("reason"))
        if same == (kind, "True", reason):
            return False
    stamp = format_time(now)
    kept: list[dict[str, Any]] = []
    for condition in job.conditions:
        other = condition.get("type")
        if other == kind or {other, kind} == {RUNNING, RESTARTING}:
            continue
        if kind in (SUCCEEDED, FAILED) and other == RUNNING and condition.get("status") == "True":
            condition = {
                **condition,
                "status": "False",
                "lastUpdateTime": stamp,
                "lastTransitionTime": stamp,
            }
        kept.append(condition)
    kept.append(
        {
            "type": kind,
            "status": "True",
            "reason": reason,
            "message": message,
            "lastUpdateTime": stamp,
            "lastTransitionTime": stamp,
        }
    )
    job.conditions = kept
    return True
