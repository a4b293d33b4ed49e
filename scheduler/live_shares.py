"""The live queue shares: the engine's proportion or capacity plugin on the database's snapshot.

The queue pages read what the worker stored after its last session (``queues.share_status``);
a preview of a change cannot wait for a session, so it runs ``scheduler.engine.shares`` on
``read_snapshot()`` with the active configuration, the edit applied to that snapshot only:
nothing is written.
"""

from __future__ import annotations

from collections.abc import Mapping

from scheduler.active_conf import active_conf
from scheduler.cache.snapshot import read_snapshot
from scheduler.engine.shares import QueueChange, ShareReport, queue_shares, queue_shares_pair

__all__ = ["live_shares", "live_shares_pair"]


def live_shares(changes: Mapping[str, QueueChange] | None = None) -> ShareReport:
    """Return every queue's share now, or as it would be after ``changes``."""
    snapshot = read_snapshot()
    return queue_shares(snapshot.cluster, active_conf()[1], changes=changes)


def live_shares_pair(changes: Mapping[str, QueueChange]) -> tuple[ShareReport, ShareReport]:
    """Return every queue's share now and after ``changes``, from one read of the cluster."""
    snapshot = read_snapshot()
    return queue_shares_pair(snapshot.cluster, active_conf()[1], changes)
