"""Which action a request gets (Volcano's ``applyPolicies``), timeouts included.

In order: an explicit action (a Command) wins; internal events sync; events
from pods of an earlier job version sync; then the task's policies, then the
job's, first match wins (an event list containing the event or ``*``, or an
equal exit code; a ``PodPending`` event only matches a policy with a timeout);
nothing matched → SyncJob. A matched policy with a ``timeout`` is not executed
at once: the caller arms a persisted timer (``delays``) for the returned delay.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from apis.durations import parse_duration
from jobs.admission.policies import policy_events
from jobs.controller.context import JobContext
from jobs.controller.requests import INTERNAL_EVENTS, Request

__all__ = ["SYNC_JOB", "resolve_action"]

SYNC_JOB = "SyncJob"
ANY = "*"


def _matches(policy: Mapping[str, Any], request: Request) -> bool:
    events = policy_events(policy)
    if events:
        if request.event == "PodPending" and not policy.get("timeout"):
            return False
        return request.event in events or ANY in events
    code = policy.get("exitCode")
    return code is not None and request.exit_code == code and request.event == "PodFailed"


def _first_match(
    policies: Sequence[Mapping[str, Any]], request: Request
) -> Mapping[str, Any] | None:
    return next((policy for policy in policies if _matches(policy, request)), None)


def resolve_action(ctx: JobContext, request: Request) -> tuple[str, float | None]:
    """Return the action for ``request`` and, for a policy with a timeout, its delay (seconds)."""
    if request.action:
        return request.action, None
    if request.event in INTERNAL_EVENTS:
        return SYNC_JOB, None
    if request.version is not None and request.version < ctx.job.version:
        return SYNC_JOB, None
    policy = None
    task = ctx.task(request.task) if request.task else None
    if task is not None:
        policy = _first_match(task.policies, request)
    if policy is None:
        policy = _first_match(ctx.job.policies, request)
    if policy is None:
        return SYNC_JOB, None
    delay = None
    if timeout := policy.get("timeout"):
        delay = parse_duration(str(timeout)) or None  # Volcano: a zero delay acts at once
    return str(policy.get("action") or SYNC_JOB), delay
