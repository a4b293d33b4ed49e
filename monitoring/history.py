"""Reading the history for charts: series over a time range, at a resolution the range picks.

``choose_resolution`` takes the finest tier that still holds ``since`` and gives at most
``max_points`` points; every reader returns times (ISO strings, UTC) and one list per series,
aligned, with ``None`` where a queue did not exist yet (a chart's gap).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from monitoring.models import HistorySample, decode
from monitoring.recorder import tiers

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
                "weight", "pending", "inqueue", "running")  # fmt: skip
_PER_RESOURCE = ("allocated", "deserved", "guarantee", "capability")


def choose_resolution(
    since: datetime, until: datetime, *, now: datetime | None = None, max_points: int = 720
) -> int:
    """Return the resolution (seconds) to read ``since``..``until`` with."""
    now = now or timezone.now()
    levels = tiers()
    span = max((until - since).total_seconds(), 0.0)
    for tier in levels:
        holds_start = since >= now - timedelta(seconds=tier.keep)
        # one sample per session: assume the default 1 s period to count points
        points = span / max(tier.resolution, 1)
        if holds_start and points <= max_points:
            return tier.resolution
    return levels[-1].resolution


def _rows(
    since: datetime,
    until: datetime,
    resolution: int | None,
    now: datetime | None,
    *,
    queues_only: bool = False,
) -> tuple[int, Iterator[tuple[datetime, int, dict[str, Any]]]]:
    if resolution is None:
        resolution = choose_resolution(since, until, now=now)
    rows = (
        HistorySample.objects.filter(resolution=resolution, at__gte=since, at__lte=until)
        .order_by("at")
        .values_list("at", "samples", "data")
    )
    return resolution, (
        (at, n, decode(data, queues_only=queues_only)) for at, n, data in rows.iterator()
    )


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

    Read column by column and turned into per-queue series at the end (one ``zip`` per field),
    not value by value: a day per minute of 100 queues is over a million values.
    """
    unknown = [f for f in fields if f not in QUEUE_FIELDS]
    if unknown:
        raise ValueError(f"fields: unknown queue field(s) {', '.join(unknown)}")
    chosen, rows = _rows(since, until, resolution, now, queues_only=True)
    out = QueueSeries(resource=resource, resolution=chosen)
    order: dict[str, int] = {}  # queue -> position, in order of first appearance
    steps: dict[str, list[list[Any]]] = {f: [] for f in fields}
    for at, _n, data in rows:
        out.times.append(at.isoformat())
        columns = data["queues"]
        names = columns["name"]
        for name in names:
            order.setdefault(name, len(order))
        column = data["resources"].index(resource) if resource in data["resources"] else None
        aligned = len(names) == len(order) and list(order) == names  # no queue missing
        for key in fields:
            if key in _PER_RESOURCE:
                values = (
                    [r[column] for r in columns[key]] if column is not None else [0] * len(names)
                )
            else:
                values = columns.get(key) or columns["share"]  # share_max: merged rows only
            if not aligned:
                spread: list[Any] = [None] * len(order)
                for name, value in zip(names, values, strict=True):
                    spread[order[name]] = value
                values = spread
            steps[key].append(values)
    width = len(order)
    names_in_order = list(order)
    out.queues = {name: {} for name in names_in_order}
    for key, per_step in steps.items():
        padded = [v if len(v) == width else [*v, *[None] * (width - len(v))] for v in per_step]
        for name, series in zip(names_in_order, zip(*padded, strict=True), strict=True):
            out.queues[name][key] = list(series)
    return out


@dataclass(slots=True)
class SessionSeries:
    """Per time: latencies (ms) and what the sessions did (sums over the bucket)."""

    resolution: int
    times: list[str] = field(default_factory=list)
    sessions: list[int] = field(default_factory=list)
    e2e_ms: list[float] = field(default_factory=list)
    e2e_max_ms: list[float] = field(default_factory=list)
    action_ms: dict[str, list[float | None]] = field(default_factory=dict)
    plugin_ms: dict[str, list[float | None]] = field(default_factory=dict)
    counts: dict[str, list[int]] = field(default_factory=dict)
    evictions_by_action: dict[str, list[int]] = field(default_factory=dict)


def session_series(
    since: datetime,
    until: datetime,
    *,
    resolution: int | None = None,
    now: datetime | None = None,
) -> SessionSeries:
    """Return the sessions' latencies and counts over the range."""
    chosen, rows = _rows(since, until, resolution, now)
    out = SessionSeries(resolution=chosen)
    for step, (at, sessions, data) in enumerate(rows):
        out.times.append(at.isoformat())
        out.sessions.append(sessions)
        latency, counts = data["latency"], data["counts"]
        out.e2e_ms.append(latency["e2e"])
        out.e2e_max_ms.append(latency["e2e_max"])
        _append(out.action_ms, latency["actions"], step, None)
        _append(out.plugin_ms, latency["plugins"], step, None)
        _append(out.evictions_by_action, counts["evictions_by_action"], step, 0)
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
    """Return per queue the running jobs' count, mean and max DRF share over the range, and the
    top jobs (``[job, queue, share, dominant resource]``) of the last sample."""
    chosen, rows = _rows(since, until, resolution, now)
    times: list[str] = []
    queues: dict[str, dict[str, list[float | None]]] = {}
    top: list[list[Any]] = []
    for step, (at, _n, data) in enumerate(rows):
        times.append(at.isoformat())
        for name, (jobs, mean, most) in data["drf"]["queues"].items():
            series = queues.setdefault(name, {k: [None] * step for k in ("jobs", "mean", "max")})
            series["jobs"].append(jobs)
            series["mean"].append(mean)
            series["max"].append(most)
        for series in queues.values():
            for values in series.values():
                if len(values) <= step:
                    values.append(None)
        top = data["drf"]["top"]
    return {"resolution": chosen, "times": times, "queues": queues, "top": top}
