"""Nothing piles up: Kubernetes Events and session records expire, pruned by the worker.

Kubernetes keeps an Event one hour after it was last seen (kube-apiserver's ``--event-ttl``);
``VOLCANO_EVENT_TTL`` (seconds, default 3600) is ours. A session record is kept for
``VOLCANO_SESSION_TTL`` seconds after its session started (default 3600), and never more than
the newest ``VOLCANO_SESSION_RETENTION`` records (default 2000, trimmed after each session by
the worker). The scheduler's history (``monitoring``) keeps its own tiers for the charts.

``prune_expired`` runs in the leader's housekeeping pass (``worker.prune_change_stream``, once
a minute) on the worker's clock (``failpoints.now()``), so a clock offset expires both without
waiting. A setting of 0 keeps nothing older than the pass.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
from dataclasses import dataclass

from django.conf import settings

from core.events import prune_events
from kube import clock
from scheduler.models import SessionRecord

__all__ = ["Pruned", "event_ttl", "prune_expired", "session_ttl"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Pruned:
    """How many rows one pass deleted."""

    events: int = 0
    sessions: int = 0


def _seconds(name: str, default: float) -> int:
    value = getattr(settings, name, None)
    if value is None or value == "":
        value = os.environ.get(name)
    if value is None or value == "":
        return int(default)
    return max(int(float(value)), 0)


def event_ttl() -> int:
    """Return how long (seconds) an Event lives after it was last seen."""
    return _seconds("VOLCANO_EVENT_TTL", 3600)


def session_ttl() -> int:
    """Return how long (seconds) a session record is kept after its session started."""
    return _seconds("VOLCANO_SESSION_TTL", 3600)


def prune_expired(now: dt.datetime) -> Pruned:
    """Delete the Events and session records that expired by ``now``; return the counts."""
    # An Event's TTL is the cluster's time (kube.clock); session records are ours: wall time.
    events = prune_events(keep_seconds=clock.real(event_ttl()).total_seconds(), now=now)
    cutoff = now - dt.timedelta(seconds=session_ttl())
    sessions, _ = SessionRecord.objects.filter(started_at__lt=cutoff).delete()
    if events or sessions:
        logger.info("pruned %d expired events and %d session records", events, sessions)
    return Pruned(events=events, sessions=sessions)
