"""What the scheduler's processes say about themselves: each worker's last heartbeat, and how far
the controllers have read the change stream.

Why the shared cache and not a table: both are a few bytes rewritten every few seconds and
worthless after a restart, and the cache is already where every scheduler process meets (Redis
in the distributed mode, which Celery needs anyway; the one process's memory in the embedded
mode, where the loop and the pages share a process). The metrics state lives there for the same
reason (``scheduler.metrics``).

Workers: each process writes ``{holder: {seen, leading, mode}}`` into one key every time it
tries the lease (the Celery worker's elector every retry period, the embedded loop every
period). The write reads, changes and stores the map: two workers beating at the same instant
may lose one beat, which the next beat (a few seconds later) puts back. A worker unheard of for
``FORGET_AFTER`` is dropped from the map.

Controllers: the registered controllers are level-triggered; a pass that starts after a change
has seen it. So before each pass the cycle notes the newest change event id, and once every
controller has finished it stores that id: every change after it is not yet reconciled, and the
oldest of them (by id, a primary-key lookup) says how far behind the controllers are.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.core.cache import cache

__all__ = [
    "FORGET_AFTER",
    "Reconciled",
    "WorkerBeat",
    "beat",
    "note_reconciled",
    "reconciled",
    "workers",
]

WORKERS_KEY = "volcano:scheduler:workers"
RECONCILED_KEY = "volcano:scheduler:reconciled"
FORGET_AFTER = 600.0  # seconds: a worker unheard of this long is gone
_TIMEOUT = 24 * 3600  # the cache's own expiry of both keys


@dataclass(frozen=True, slots=True)
class WorkerBeat:
    """One scheduler process as it last reported itself."""

    holder: str
    seen: datetime
    leading: bool
    mode: str  # "embedded" or "celery"


@dataclass(frozen=True, slots=True)
class Reconciled:
    """The controllers' last complete pass: the newest change it had seen, when, how long."""

    through: int
    at: datetime
    durations_ms: dict[str, float]


def _stamp(moment: datetime) -> float:
    return moment.timestamp()


def _moment(stamp: Any) -> datetime:
    return datetime.fromtimestamp(float(stamp), tz=UTC)


def beat(holder: str, *, leading: bool, mode: str, now: float | None = None) -> None:
    """Record that ``holder`` is alive (and whether it leads); forget long-silent workers."""
    now = time.time() if now is None else now
    known: dict[str, Any] = cache.get(WORKERS_KEY) or {}
    known = {k: v for k, v in known.items() if now - float(v.get("seen", 0)) < FORGET_AFTER}
    known[holder] = {"seen": now, "leading": leading, "mode": mode}
    cache.set(WORKERS_KEY, known, _TIMEOUT)


def workers(*, now: float | None = None) -> list[WorkerBeat]:
    """Return the workers heard of within ``FORGET_AFTER``, the leader first, then by name."""
    now = time.time() if now is None else now
    known: dict[str, Any] = cache.get(WORKERS_KEY) or {}
    rows = [
        WorkerBeat(holder, _moment(v["seen"]), bool(v.get("leading")), str(v.get("mode", "")))
        for holder, v in known.items()
        if now - float(v.get("seen", 0)) < FORGET_AFTER
    ]
    return sorted(rows, key=lambda w: (not w.leading, w.holder))


def note_reconciled(through: int, at: datetime, durations_ms: dict[str, float]) -> None:
    """Store the controllers' last complete pass (``through``: the newest change id it saw)."""
    value = {"through": through, "at": _stamp(at), "ms": durations_ms}
    cache.set(RECONCILED_KEY, value, _TIMEOUT)


def reconciled() -> Reconciled | None:
    """Return the controllers' last complete pass, or None when none was recorded."""
    value = cache.get(RECONCILED_KEY)
    if not value:
        return None
    ms = {str(k): float(v) for k, v in (value.get("ms") or {}).items()}
    return Reconciled(int(value["through"]), _moment(value["at"]), ms)
