"""A job's pods over time, from their own timestamps: spans for the timeline, the DRF share.

Pure (no query): the job page hands in its pods' fields and the cluster's allocatable.

Each pod's life is read from what it records: created (``metadata.creationTimestamp``),
scheduled (its ``PodScheduled=True`` condition's transition time, written with the bind),
started (``status.startTime``, when the runtime ran it) and finished (``finish_time``, else
its deletion time). A pod holds its requests on its node from its bind until it finishes,
as Volcano's drf plugin counts a task's resources from Allocated/Bound on.

Why the DRF share is rebuilt here rather than read from the history: the history keeps the
top N jobs' shares only (``VOLCANO_HISTORY_TOP_JOBS``), so most jobs would have no line at
all. Rebuilt from the pods, every job has one: at each instant, the sum of its holding pods'
requests divided by the Ready nodes' allocatable, the largest such fraction over the
resources (the dominant share) and that resource named. Two limits, stated on the page: the
allocatable is today's (a node added or lost since shifts the past shares), and pods the
controller replaced (a restart) are gone with their timestamps.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

__all__ = ["PodSpan", "ShareSteps", "drf_share_steps", "pod_span"]

POD_SCHEDULED = "PodScheduled"


@dataclass(frozen=True, slots=True)
class PodSpan:
    """One pod's life: when it was created, bound, started and ended (None: not yet)."""

    name: str
    phase: str
    created: datetime
    scheduled: datetime | None = None
    started: datetime | None = None
    finished: datetime | None = None
    requests: Mapping[str, int] = field(default_factory=dict)


def _parse(text: Any) -> datetime | None:
    if not text or not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def pod_span(
    *,
    name: str,
    phase: str,
    created: datetime,
    conditions: Iterable[Any],
    node_bound: bool,
    start_time: datetime | None,
    finish_time: datetime | None,
    deletion_time: datetime | None,
    requests: Mapping[str, Any],
) -> PodSpan:
    """Return a pod's span from its fields (a bound pod without a condition: its start)."""
    scheduled = None
    for cond in conditions or ():
        if (
            isinstance(cond, dict)
            and cond.get("type") == POD_SCHEDULED
            and cond.get("status") == "True"
        ):
            scheduled = _parse(cond.get("lastTransitionTime"))
    if scheduled is None and (node_bound or start_time is not None):
        scheduled = start_time or created
    finished = finish_time or (deletion_time if phase not in ("Pending", "Running") else None)
    if scheduled is not None and scheduled < created:  # stamps are kept to the second
        scheduled = created
    return PodSpan(
        name=name, phase=phase, created=created, scheduled=scheduled, started=start_time,
        finished=finished, requests={str(k): int(v) for k, v in (requests or {}).items()},
    )  # fmt: skip


@dataclass(slots=True)
class ShareSteps:
    """The job's dominant share at each change: times, shares (0-1) and dominant resources."""

    times: list[datetime] = field(default_factory=list)
    shares: list[float] = field(default_factory=list)
    dominant: list[str] = field(default_factory=list)


def drf_share_steps(
    spans: Iterable[PodSpan], total: Mapping[str, int], *, since: datetime, until: datetime
) -> ShareSteps:
    """Return the job's DRF dominant share over ``since``..``until`` as a step series.

    A pod holds its requests from ``scheduled`` to ``finished`` (or ``until``). The first
    step is at ``since`` (what was held then), the last at ``until``.
    """
    resources = [r for r, amount in total.items() if amount > 0]
    changes: list[tuple[datetime, int, Mapping[str, int]]] = []
    for span in spans:
        if span.scheduled is None:
            continue
        end = span.finished or until
        if end <= since or span.scheduled >= until or end <= span.scheduled:
            continue
        changes.append((max(span.scheduled, since), 1, span.requests))
        if end < until:
            changes.append((end, -1, span.requests))
    changes.sort(key=lambda c: (c[0], c[1]))
    held = dict.fromkeys(resources, 0)
    out = ShareSteps()

    def step(at: datetime) -> None:
        best, name = 0.0, ""
        for r in resources:
            share = held[r] / total[r]
            if share > best:
                best, name = share, r
        if out.times and out.times[-1] == at:
            out.shares[-1], out.dominant[-1] = round(best, 6), name
        else:
            out.times.append(at)
            out.shares.append(round(best, 6))
            out.dominant.append(name)

    step(since)
    for at, sign, requests in changes:
        for r in resources:
            held[r] += sign * int(requests.get(r, 0))
        step(at)
    step(until)
    return out
