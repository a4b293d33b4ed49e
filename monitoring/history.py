"""Reading the history for charts: series over a time range, at a resolution the range picks.

``choose_resolution`` takes the finest tier that still holds ``since`` and gives at most
``max_points`` points; every reader returns times (ISO strings, UTC) and one list per series,
aligned, with ``None`` where a queue did not exist yet (a chart's gap).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from django.utils import timezone

from monitoring.codec import DrfBlock, QueueBlocks, decode_blocks, decode_drf_block, decode_sessions
from monitoring.merge import merge_sessions
from monitoring.models import HistorySample
from monitoring.recorder import tiers
from monitoring.row_cache import decoded
from monitoring.stacking import drf_queue_columns, queue_columns

__all__ = [
    "QUEUE_FIELDS",
    "QueueSeries",
    "SessionSeries",
    "choose_resolution",
    "job_share_series",
    "queue_series",
    "session_series",
]

QUEUE_FIELDS = ("allocated", "deserved", "guarantee", "capability", "share", "share_max",
                "weight", "pending", "inqueue", "running", "pods_pending", "pods_running")  # fmt: skip
Blob = bytes | memoryview  # a stored sample as the database driver returns it


def choose_resolution(
    since: datetime, until: datetime, *, now: datetime | None = None, max_points: int = 1000
) -> int:
    """Return the resolution (seconds) to read ``since``..``until`` with."""
    now = now or timezone.now()
    levels = tiers()
    span = max((until - since).total_seconds(), 0.0)
    for tier in levels:
        # a little slack: "the last 24 h" asked a moment ago still fits a tier keeping 24 h
        holds_start = since >= now - timedelta(seconds=tier.keep * 1.02)
        # one sample per session: assume the default 1 s period to count points
        points = span / max(tier.resolution, 1)
        if holds_start and points <= max_points:
            return tier.resolution
    return levels[-1].resolution


def _stored(
    resolution: int, since: datetime, until: datetime
) -> list[tuple[int, datetime, int, Blob]]:
    """Return ``(id, at, sessions, blob)`` of the rows at ``resolution`` over the range, then the
    newer rows of the finer tiers that are not rolled up into it yet.

    Roll-ups take whole buckets once a minute, so without the finer tail a chart of the last
    day (per minute) would end a minute or two ago and never show the session just recorded.
    """

    def query(level: int, start: datetime) -> list[tuple[int, datetime, int, Blob]]:
        rows = HistorySample.objects.filter(resolution=level, at__gte=start, at__lte=until)
        return list(rows.order_by("at").values_list("pk", "at", "samples", "data"))

    found = query(resolution, since)
    if resolution == 0:
        return found
    covered = found[-1][1] + timedelta(seconds=resolution) if found else since
    for level in sorted((t.resolution for t in tiers() if t.resolution < resolution), reverse=True):
        tail = query(level, covered)
        found += tail
        if tail:
            covered = tail[-1][1] + timedelta(seconds=max(level, 1))
    return found


def _rows(
    since: datetime,
    until: datetime,
    resolution: int | None,
    now: datetime | None,
    part: Callable[[Blob], dict[str, Any]],
) -> tuple[int, list[tuple[datetime, int, dict[str, Any]]]]:
    """Return the resolution and the rows' ``part`` (``decode_sessions`` or ``decode_drf``),
    the finer tail merged into buckets of the resolution (counts stay sums per bucket)."""
    if resolution is None:
        resolution = choose_resolution(since, until, now=now)
    rows = [
        (at, n, decoded(pk, blob, part)) for pk, at, n, blob in _stored(resolution, since, until)
    ]
    if resolution == 0:
        return resolution, rows
    out: list[tuple[datetime, int, dict[str, Any]]] = []
    for at, n, data in rows:
        start = _bucket_start(at, resolution)
        if out and out[-1][0] == start:  # a bucket still filling: merge the tail into it
            _at, m, merged = out[-1]
            out[-1] = (start, m + n, merge_sessions([(m, merged), (n, data)]))
        else:
            out.append((start, n, data))
    return resolution, out


def _bucket_start(at: datetime, resolution: int) -> datetime:
    seconds = int(at.timestamp()) // resolution * resolution
    return datetime.fromtimestamp(seconds, tz=at.tzinfo)


@dataclass(slots=True)
class QueueSeries:
    """Per queue, per field, one value per time (``resource`` for the per-resource fields)."""

    resource: str
    resolution: int
    times: list[str] = field(default_factory=list)
    queues: dict[str, dict[str, list[float | None]]] = field(default_factory=dict)


def queue_series(
    resource: str,
    since: datetime,
    until: datetime,
    *,
    fields: tuple[str, ...] = QUEUE_FIELDS,
    resolution: int | None = None,
    now: datetime | None = None,
) -> QueueSeries:
    """Return every queue's ``fields`` for ``resource`` (milli-units) over the range.

    A day per minute of 100 queues is over a million values, so the stored blocks of each run
    of samples with the same queues are stacked and transposed with NumPy (``stacking``),
    ``None`` where a queue was missing; each row is decoded once per process (``row_cache``).
    """
    unknown = [f for f in fields if f not in QUEUE_FIELDS]
    if unknown:
        raise ValueError(f"fields: unknown queue field(s) {', '.join(unknown)}")
    if resolution is None:
        resolution = choose_resolution(since, until, now=now)
    out = QueueSeries(resource=resource, resolution=resolution)
    steps: list[QueueBlocks] = []
    for pk, at, _n, blob in _stored(resolution, since, until):  # the finer tail as own points
        out.times.append(at.isoformat())
        steps.append(decoded(pk, blob, decode_blocks))
    if not steps:
        return out
    out.queues = queue_columns(steps, resource, fields)
    return out


@dataclass(slots=True)
class SessionSeries:
    """Per time: latencies (ms) and what the sessions did (sums over the bucket)."""

    resolution: int
    times: list[str] = field(default_factory=list)
    sessions: list[int] = field(default_factory=list)
    # None where a point had no session (a Prometheus step without one; the history keeps
    # no point then): a chart's gap, not 0 ms
    e2e_ms: list[float | None] = field(default_factory=list)
    e2e_max_ms: list[float | None] = field(default_factory=list)
    action_ms: dict[str, list[float | None]] = field(default_factory=dict)
    plugin_ms: dict[str, list[float | None]] = field(default_factory=dict)
    counts: dict[str, list[int]] = field(default_factory=dict)
    evictions_by_action: dict[str, list[int]] = field(default_factory=dict)
    evictions_by_queue: dict[str, list[int]] = field(default_factory=dict)
    # Per time: the sessions per latency bucket (``monitoring.latency``: ``{"e2e": counts,
    # "actions": {name: counts}, "plugins": {name: counts}}``), None where the point was
    # recorded without them (before they existed, or a source that has none).
    histograms: list[dict[str, Any] | None] = field(default_factory=list)


def session_series(
    since: datetime,
    until: datetime,
    *,
    resolution: int | None = None,
    now: datetime | None = None,
) -> SessionSeries:
    """Return the sessions' latencies and counts over the range."""
    chosen, rows = _rows(since, until, resolution, now, decode_sessions)
    out = SessionSeries(resolution=chosen)
    for step, (at, sessions, data) in enumerate(rows):
        out.times.append(at.isoformat())
        out.sessions.append(sessions)
        latency, counts = data["latency"], data["counts"]
        out.e2e_ms.append(latency["e2e"])
        out.e2e_max_ms.append(latency["e2e_max"])
        out.histograms.append(latency.get("hist"))
        _append(out.action_ms, latency["actions"], step, None)
        _append(out.plugin_ms, latency["plugins"], step, None)
        _append(out.evictions_by_action, counts["evictions_by_action"], step, 0)
        _append(out.evictions_by_queue, counts.get("evictions_by_queue", {}), step, 0)
        _append(out.counts, {k: v for k, v in counts.items() if isinstance(v, int)}, step, 0)
    return out


def _append(series: dict[str, list[Any]], values: dict[str, Any], step: int, empty: Any) -> None:
    for name, value in values.items():
        series.setdefault(name, [empty] * step).append(value)
    for values_of in series.values():
        if len(values_of) <= step:
            values_of.append(empty)


def job_share_series(
    since: datetime,
    until: datetime,
    *,
    resolution: int | None = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """Return per queue the running jobs' count, mean and max DRF share over the range, the
    top jobs (``[job, queue, share, dominant resource]``) of the last sample, and per job of
    the last sample's top N and the highest peaks (``jobs``: ``{"queue", "dominant", "share"}``)
    its share over the range, ``None`` where it was not among the top N (only those are stored).

    Shares are levels, so the finer tail not rolled up yet is read as its own points. The
    per-queue figures of each run of samples with the same queues are stacked with NumPy.
    """
    if resolution is None:
        resolution = choose_resolution(since, until, now=now)
    times: list[str] = []
    blocks: list[DrfBlock] = []
    for pk, at, _n, blob in _stored(resolution, since, until):
        times.append(at.isoformat())
        blocks.append(decoded(pk, blob, decode_drf_block))
    return {
        "resolution": resolution,
        "times": times,
        "queues": drf_queue_columns(blocks),
        "top": blocks[-1].top if blocks else [],
        "jobs": _job_series(blocks),
    }


def _job_series(blocks: list[DrfBlock]) -> dict[str, dict[str, Any]]:
    """Return the share series of the last sample's top jobs, then of the jobs with the highest
    peak share over the range, as many as the last top holds (at least 50).

    Jobs come and go from the top N, so a week can see thousands; a series for each would be
    thousands of mostly empty lists. Every sample's top jobs are laid end to end as columns
    (a number per uid, the shares in one array), the peaks and last positions are taken with
    NumPy, and only the kept jobs get their full series (``None`` where a job was not among
    the top N). A job's queue and dominant resource are those of its latest appearance.
    """
    uids: list[str] = []
    queues: list[str] = []
    dominants: list[str] = []
    shares: list[np.ndarray] = []
    counts: list[int] = []
    for block in blocks:
        u, q, s, d = block.columns()
        uids += u
        queues += q
        dominants += d
        shares.append(s)
        counts.append(len(u))
    if not uids:
        return {}
    numbers: dict[str, int] = {}
    codes = np.fromiter((numbers.setdefault(u, len(numbers)) for u in uids), dtype=np.intp,
                        count=len(uids))  # fmt: skip
    values = np.concatenate(shares)
    steps = np.repeat(np.arange(len(blocks)), counts)
    peaks = np.full(len(numbers), -np.inf)
    np.maximum.at(peaks, codes, values)
    latest = np.zeros(len(numbers), dtype=np.intp)
    np.maximum.at(latest, codes, np.arange(len(uids)))
    names = list(numbers)
    last = blocks[-1].uids
    keep = max(50, len(last))
    in_last = set(last)
    others = sorted((i for i, u in enumerate(names) if u not in in_last),
                    key=lambda i: (-peaks[i], names[i]))  # fmt: skip
    kept = list(dict.fromkeys(([numbers[u] for u in last] + others)[:keep]))
    row_of = np.full(len(numbers), -1, dtype=np.intp)
    row_of[kept] = np.arange(len(kept))
    grid = np.full((len(kept), len(blocks)), np.nan)
    chosen = row_of[codes] >= 0
    grid[row_of[codes[chosen]], steps[chosen]] = values[chosen]
    out: dict[str, dict[str, Any]] = {}
    for code, row in zip(kept, grid.tolist(), strict=True):
        at = int(latest[code])
        series = [None if v != v else v for v in row]  # NaN: not among the top N then
        out[names[code]] = {"queue": queues[at], "dominant": dominants[at], "share": series}
    return out
