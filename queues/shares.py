"""The live queue shares: the engine's proportion or capacity plugin on the database's snapshot.

Every figure the queue pages show as *deserved*, *overused* or *reclaimable*, and every
preview of a change, comes from ``scheduler.engine.shares`` run on ``read_snapshot()`` with
the active configuration, so the page says what the next session will compute. A preview
applies the edit to that snapshot only; nothing is written.
"""

from __future__ import annotations

from collections.abc import Mapping

from scheduler.cache.snapshot import read_snapshot
from scheduler.engine import load_conf
from scheduler.engine.conf import SchedulerConf
from scheduler.engine.shares import QueueChange, ShareReport, queue_shares, queue_shares_pair
from scheduler.models import SchedulerConfiguration

__all__ = ["active_conf", "live_shares", "live_shares_pair"]

_parsed: dict[tuple[int, str], SchedulerConf] = {}


def active_conf() -> SchedulerConf:
    """Return the active configuration, parsed once per version (Volcano's default without one)."""
    row = SchedulerConfiguration.objects.filter(is_active=True).only("pk", "text").first()
    if row is None:
        return load_conf(None)
    key = (row.pk, row.text)
    if key not in _parsed:
        _parsed.clear()
        _parsed[key] = load_conf(row.text)
    return _parsed[key]


def live_shares(changes: Mapping[str, QueueChange] | None = None) -> ShareReport:
    """Return every queue's share now, or as it would be after ``changes``."""
    snapshot = read_snapshot()
    return queue_shares(snapshot.cluster, active_conf(), changes=changes)


def live_shares_pair(changes: Mapping[str, QueueChange]) -> tuple[ShareReport, ShareReport]:
    """Return every queue's share now and after ``changes``, from one read of the cluster."""
    snapshot = read_snapshot()
    return queue_shares_pair(snapshot.cluster, active_conf(), changes)
