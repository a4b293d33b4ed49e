"""tdm's vocabulary: revocable-zone time windows, who may run on revocable nodes, eviction budgets.

Volcano's counterpart: ``parseRevocableZone``, ``availableRevocableZone``,
``getMaxPodEvictNum`` and ``parseIntStr`` of ``pkg/scheduler/plugins/tdm``, and the readers of
``volcano.sh/revocable-zone``, ``volcano.sh/preemptable`` and the ``volcano.sh/jdb-*`` budget
annotations in ``pkg/scheduler/api``. Everything here compares with the session's ``now``, never
the wall clock.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from datetime import datetime, timedelta

from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.node_info import NodeInfo
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import TaskStatus

__all__ = [
    "JDB_MAX_UNAVAILABLE",
    "JDB_MIN_AVAILABLE",
    "PREEMPTABLE",
    "REVOCABLE_ZONE",
    "job_preemptable",
    "max_pod_evict_num",
    "node_zone",
    "task_may_use_revocable",
    "zone_closed_reason",
]

REVOCABLE_ZONE = "volcano.sh/revocable-zone"
PREEMPTABLE = "volcano.sh/preemptable"
JDB_MIN_AVAILABLE = "volcano.sh/jdb-min-available"
JDB_MAX_UNAVAILABLE = "volcano.sh/jdb-max-unavailable"
DEFAULT_POD_EVICT_NUM = 1

# Go's time.Parse("15:04", …): hour of one or two digits, minute of exactly two.
_CLOCK = re.compile(r"(\d{1,2}):(\d{2})")
_INT = re.compile(r"[+-]?\d+")
_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})


def go_bool(text: str) -> bool | None:
    """Return Go's ``strconv.ParseBool`` of ``text``, or None when it is not a bool."""
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    return None


def node_zone(node: NodeInfo) -> str:
    """Return the node's revocable zone ('' for an ordinary node)."""
    return node.labels.get(REVOCABLE_ZONE, "")


def task_may_use_revocable(task: TaskInfo) -> bool:
    """Return True when the pod's revocable zone is ``*`` (Volcano's ``GetPodRevocableZone``).

    The ``volcano.sh/revocable-zone`` annotation decides when present (only ``*`` allows);
    without it, an annotation ``volcano.sh/preemptable: "true"`` counts as ``*``.
    """
    annotations = task.annotations
    zone = annotations.get(REVOCABLE_ZONE)
    if zone is not None:
        return zone == "*"
    preemptable = annotations.get(PREEMPTABLE)
    return preemptable is not None and go_bool(preemptable) is True


def job_preemptable(job: JobInfo) -> bool:
    """Return the PodGroup's ``volcano.sh/preemptable`` (annotation, then label; default false;
    a value that is no bool counts as false)."""
    for source in (job.annotations, job.labels):
        value = source.get(PREEMPTABLE)
        if value is not None:
            return go_bool(value) is True
    return False


def _clock(text: str, raw: str) -> tuple[int, int]:
    match = _CLOCK.fullmatch(text)
    hour, minute = (int(match.group(1)), int(match.group(2))) if match else (99, 99)
    if hour > 23 or minute > 59:
        raise ValueError(f'parsing time "{text}" as "15:04": cannot parse window {raw!r}')
    return hour, minute


def window(raw: str, now: datetime) -> tuple[datetime, datetime]:
    """Return the start and end of window ``H:MM-H:MM`` on ``now``'s calendar day.

    An end not after the start is on the next day ("0:00-0:00" lasts a whole day). Raises
    ``ValueError`` with Volcano's message when the text is no window.
    """
    parts = raw.strip().split("-")
    if len(parts) != 2:
        raise ValueError(f"revocable zone {raw} format error")
    first, second = _clock(parts[0], raw), _clock(parts[1], raw)
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    start = midnight + timedelta(hours=first[0], minutes=first[1])
    end_day = midnight + timedelta(days=1) if first >= second else midnight
    return start, end_day + timedelta(hours=second[0], minutes=second[1])


def zone_closed_reason(zones: Mapping[str, str], zone: str, now: datetime) -> str | None:
    """Return why revocable zone ``zone`` is closed at ``now``, or None while it is open.

    Unknown zones and windows that cannot be read count as closed. Compared at second
    precision, both ends included.
    """
    raw = zones.get(zone)
    if raw is None:
        return f"revocable zone {zone} not support"
    try:
        start, end = window(raw, now)
    except ValueError as exc:
        return str(exc)
    second = math.floor(now.timestamp())
    if second < start.timestamp() or second > end.timestamp():
        return f"current time beyond revocable zone {zone}:{raw}"
    return None


def _int_or_percent(text: str, total: int) -> int:
    """Return Kubernetes' IntOrString value of ``text`` (percentages of ``total`` rounded up;
    anything else is 0, as Volcano logs and goes on)."""
    if _INT.fullmatch(text):
        return int(text)
    if text.endswith("%") and _INT.fullmatch(text[:-1]):
        return math.ceil(int(text[:-1]) * total / 100)
    return 0


def max_pod_evict_num(job: JobInfo) -> int:
    """Return how many of the job's pods tdm may evict now (Volcano's ``getMaxPodEvictNum``).

    ``jdb-min-available`` wins when both annotations are set: running minus it, when enough run.
    ``jdb-max-unavailable``: it minus the pods already unavailable (neither running nor finished).
    Otherwise, and when fewer than jdb-min-available run, one pod.
    """
    total = len(job.tasks)
    running = job.count(TaskStatus.RUNNING)
    annotations = job.annotations
    # Volcano keeps only one of the two, min-available first; an empty value is no budget.
    if JDB_MIN_AVAILABLE in annotations:
        min_available, max_unavailable = annotations[JDB_MIN_AVAILABLE], ""
    else:
        min_available, max_unavailable = "", annotations.get(JDB_MAX_UNAVAILABLE, "")
    if max_unavailable:
        ceiling = _int_or_percent(max_unavailable, total)
        finished = job.count(TaskStatus.SUCCEEDED, TaskStatus.FAILED)
        unavailable = total - finished - running
        return 0 if unavailable >= ceiling else ceiling - unavailable
    if min_available:
        floor = _int_or_percent(min_available, total)
        if running >= floor:
            return running - floor
    return DEFAULT_POD_EVICT_NUM
