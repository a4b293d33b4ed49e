"""Each queue's share as the last session computed it, stored on the queue rows for the pages.

Volcano's scheduler updates each queue's status itself after a session; so does ours. Why
stored: the queue pages must show the engine's deserved shares, overused and reclaimable flags
and the order of waiting jobs, and computing them means reading the whole snapshot and opening
a session (half a second on 5,000 nodes). The worker has just done exactly that, so after each
session it writes what the sharing plugin computed at open (``Decisions.shares``), only on the
rows whose figures moved, with ``bulk_update`` (no resourceVersion bump, no audit: it is status,
not an operator's change). The pages read it back with ``queues.share_status``; a preview still
computes live (``scheduler.share_preview``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from queues.models import Queue
from scheduler.engine.shares import ShareReport

__all__ = ["LINE_KEPT", "store_shares"]

LINE_KEPT = 200  # waiting jobs kept per queue in the stored line (the page shows 50)


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
