"""What the CLI prints: vcctl's fixed-width tables, ``job view``'s description, ``-o yaml|json``.

The tables keep vcctl's columns, order and widths (``pkg/cli/job/list.go``,
``pkg/cli/queue/list.go``) so scripts written against vcctl's output keep working.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import yaml

__all__ = [
    "JOB_COLUMNS",
    "JOB_TYPE_LABEL",
    "QUEUE_COLUMNS",
    "human_duration",
    "job_table",
    "queue_table",
    "render",
]

Object = Mapping[str, Any]

# (header, width); the Name (and Namespace) columns are as wide as the longest value + 3.
JOB_COLUMNS: tuple[tuple[str, int], ...] = (
    ("Creation", 15),
    ("Phase", 12),
    ("JobType", 12),
    ("Replicas", 12),
    ("Min", 6),
    ("Pending", 10),
    ("Running", 10),
    ("Succeeded", 12),
    ("Failed", 10),
    ("Unknown", 12),
    ("RetryCount", 10),
)
QUEUE_COLUMNS: tuple[tuple[str, int], ...] = (
    ("Name", 25),
    ("Weight", 8),
    ("State", 8),
    ("Inqueue", 8),
    ("Pending", 8),
    ("Running", 8),
    ("Unknown", 8),
    ("Completed", 8),
)
JOB_TYPE_LABEL = "volcano.sh/job-type"


def _row(cells: Sequence[tuple[object, int]]) -> str:
    return "".join(f"{'' if value is None else value!s:<{width}}" for value, width in cells) + "\n"


def _int(data: Object | None, key: str) -> int:
    value = (data or {}).get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _date(timestamp: object) -> str:
    """Return an RFC 3339 timestamp as vcctl's Creation column shows it (local date)."""
    parsed = parse_time(timestamp)
    return parsed.astimezone().strftime("%Y-%m-%d") if parsed else ""


def parse_time(timestamp: object) -> datetime | None:
    """Return an RFC 3339 timestamp (``2026-11-21T22:30:00Z``) as an aware datetime, or None."""
    if not isinstance(timestamp, str) or not timestamp:
        return None
    try:
        return datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return None


def job_row_values(job: Object) -> list[object]:
    """Return one job's cells after Name, in ``JOB_COLUMNS`` order."""
    metadata, spec, status = (
        job.get("metadata") or {},
        job.get("spec") or {},
        job.get("status") or {},
    )
    replicas = sum(_int(task, "replicas") for task in spec.get("tasks") or [])
    job_type = (metadata.get("labels") or {}).get(JOB_TYPE_LABEL) or "Batch"
    phase = (status.get("state") or {}).get("phase") or ""
    counts = [_int(status, key) for key in ("minAvailable", "pending", "running", "succeeded")]
    tail = [_int(status, key) for key in ("failed", "unknown", "retryCount")]
    return [_date(metadata.get("creationTimestamp")), phase, job_type, replicas, *counts, *tail]


def job_table(jobs: Sequence[Object], *, all_namespaces: bool) -> str:
    """Return vcctl's ``job list`` table (a Namespace column first with ``--all-namespaces``)."""
    names = [str((job.get("metadata") or {}).get("name", "")) for job in jobs]
    spaces = [str((job.get("metadata") or {}).get("namespace", "")) for job in jobs]
    name_width = max([len("Name"), *map(len, names)]) + 3
    space_width = max([len("Namespace"), *map(len, spaces)]) + 3
    lead: list[tuple[object, int]] = [("Name", name_width)]
    if all_namespaces:
        lead.insert(0, ("Namespace", space_width))
    lines = [_row([*lead, *JOB_COLUMNS])]
    for job, name, space in zip(jobs, names, spaces, strict=True):
        cells: list[tuple[object, int]] = [(name, name_width)]
        if all_namespaces:
            cells.insert(0, (space, space_width))
        values = job_row_values(job)
        cells += [(value, width) for value, (_, width) in zip(values, JOB_COLUMNS, strict=True)]
        lines.append(_row(cells))
    return "".join(lines)


def queue_table(queues: Iterable[Object]) -> str:
    """Return vcctl's ``queue list`` / ``queue get`` table; counts are PodGroups per phase."""
    lines = [_row(QUEUE_COLUMNS)]
    for queue in queues:
        status = queue.get("status") or {}
        values: list[object] = [
            (queue.get("metadata") or {}).get("name", ""),
            _int(queue.get("spec"), "weight"),
            status.get("state") or "",
            *(_int(status, key) for key in ("inqueue", "pending", "running", "unknown")),
            _int(status, "completed"),
        ]
        lines.append(_row([(v, w) for v, (_, w) in zip(values, QUEUE_COLUMNS, strict=True)]))
    return "".join(lines)


def render(obj: Object, fmt: str) -> str:
    """Return ``obj`` as ``-o json`` (kubectl's 4-space indent) or ``-o yaml`` prints it."""
    if fmt == "json":
        return json.dumps(obj, indent=4, ensure_ascii=False) + "\n"
    text: str = yaml.safe_dump(dict(obj), default_flow_style=False, sort_keys=False)
    return text


def human_duration(delta: timedelta) -> str:
    """Return an age the way kubectl prints it (``45s``, ``3m20s``, ``5h``, ``2d3h``)."""
    seconds = int(delta.total_seconds())
    if seconds < -1:
        return "<invalid>"
    if seconds < 120:
        return f"{max(seconds, 0)}s"
    minutes, hours, days = seconds // 60, seconds // 3600, seconds // 86400
    if minutes < 10:
        return f"{minutes}m{seconds % 60}s" if seconds % 60 else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    if hours < 8:
        return f"{hours}h{minutes % 60}m" if minutes % 60 else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        return f"{days}d{hours % 24}h" if hours % 24 else f"{days}d"
    if days < 365 * 2:
        return f"{days}d"
    if days < 365 * 8:
        return f"{days // 365}y{days % 365}d"
    return f"{days // 365}y"
