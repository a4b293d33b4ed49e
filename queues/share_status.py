"""The shares the scheduler computed, kept on each queue row for the console to read.

Why stored: the queue pages must show the engine's deserved shares, overused and reclaimable
flags and the order of waiting jobs, and computing them means reading the whole snapshot and
opening a session (half a second on 5,000 nodes). The worker has just done exactly that, so
after each session it writes what the sharing plugin computed at open (``Decisions.shares``),
only on the rows whose figures moved, with ``bulk_update`` (no resourceVersion bump, no audit:
it is status, not an operator's change). A preview still computes live (``scheduler.share_preview``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from queues.models import Queue
from scheduler.engine.shares import ShareReport

__all__ = ["LINE_KEPT", "StoredShare", "store_shares", "stored_shares"]

LINE_KEPT = 200  # waiting jobs kept per queue in the stored line (the page shows 50)


@dataclass(frozen=True, slots=True)
class StoredShare:
    """A queue's share as the last session computed it (the fields the pages read)."""

    plugin: str = ""
    taking_part: bool = False
    deserved: dict[str, float] = field(default_factory=dict)
    overused: bool = False
    reclaimable: bool = False
    share: float = 0.0
    place: int = 0  # 1-based place among the queues allocate visits (0: holds no job)
    waiting: int = 0  # how many PodGroups wait (the first LINE_KEPT are in ``waiting_line``)
    at: str = ""

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> StoredShare:
        """Return the stored figures (an empty share before the first session)."""
        if not data:
            return cls()
        return cls(
            plugin=str(data.get("plugin", "")),
            taking_part=bool(data.get("taking_part")),
            deserved={k: float(v) for k, v in (data.get("deserved") or {}).items()},
            overused=bool(data.get("overused")),
            reclaimable=bool(data.get("reclaimable")),
            share=float(data.get("share", 0.0)),
            place=int(data.get("place", 0)),
            waiting=int(data.get("waiting", 0)),
            at=str(data.get("at", "")),
        )


def _status(report: ShareReport, name: str, place: int) -> dict[str, Any]:
    share = report.queues.get(name)
    waiting = len(report.job_order.get(name, []))
    if share is None:
        return {"plugin": report.plugin, "place": place, "waiting": waiting}
    return {
        "plugin": report.plugin,
        "taking_part": share.taking_part,
        "deserved": {k: round(v, 3) for k, v in share.deserved.items()},
        "overused": share.overused,
        "reclaimable": share.reclaimable,
        "share": round(share.share, 6),
        "place": place,
        "waiting": waiting,
    }


def store_shares(report: ShareReport, *, now: datetime) -> int:
    """Write the report onto the queue rows whose figures changed; return how many changed."""
    changed: list[Queue] = []
    places = {name: i for i, name in enumerate(report.queue_order, start=1)}
    for queue in Queue.objects.only("pk", "name", "share_status", "waiting_line"):
        status = _status(report, queue.name, places.get(queue.name, 0))
        line = report.job_order.get(queue.name, [])[:LINE_KEPT]
        old = dict(queue.share_status or {})
        old.pop("at", None)
        if old != status or queue.waiting_line != line:
            queue.share_status = {**status, "at": now.isoformat()}
            queue.waiting_line = line
            changed.append(queue)
    if changed:
        Queue.objects.bulk_update(changed, ["share_status", "waiting_line"], batch_size=500)
    return len(changed)


def stored_shares(queues: list[Queue]) -> dict[str, StoredShare]:
    """Return each queue's stored share by name."""
    return {q.name: StoredShare.from_json(q.share_status) for q in queues}
