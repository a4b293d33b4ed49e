"""Writing the history: one sample per session, then roll-ups and retention by the worker.

The worker knows none of this: the monitoring app registers two after-session hooks in its
``ready()`` (``kube.registry.add_session_hook``): ``HISTORY_HOOK`` stores the sample the
scheduler built of the session (``scheduler.session_sample``, handed over as plain data in
``SessionReport.sample``) and rolls the history up in the leader's housekeeping;
``NODE_HISTORY_HOOK`` stores every node's load when a node sample is due
(``monitoring.node_history``).

Settings (Django settings or the environment):

- ``VOLCANO_HISTORY_ENABLED`` (default on): record a sample after each session.
- ``VOLCANO_HISTORY_TIERS`` (default ``0:3600,60:86400,600:604800``): ``resolution:keep``
  seconds per tier, finest first; 0 is one sample per session. Each tier is built from the
  one before it, so each tier must keep at least the next tier's resolution.
- ``VOLCANO_HISTORY_TOP_JOBS`` (default 50): running jobs whose DRF share is kept per sample
  (read by the scheduler, which reads the shares: ``scheduler.session_sample.top_jobs``).
- ``VOLCANO_HISTORY_COMPACT_PERIOD`` (default 60 s): how often the worker rolls up and prunes.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction

from kube.registry import SessionHook, SessionReport
from monitoring.latency import histogram
from monitoring.merge import merge_samples
from monitoring.models import HistorySample, decode, encode
from monitoring.node_history import compact_node_history, record_node_sample

__all__ = [
    "HISTORY_HOOK",
    "HISTORY_TOPIC",
    "NODE_HISTORY_HOOK",
    "VERSION",
    "Tier",
    "compact_history",
    "history_enabled",
    "maybe_compact_history",
    "record_session",
    "tiers",
]

logger = logging.getLogger(__name__)
DEFAULT_TIERS = "0:3600,60:86400,600:604800"
# The live topic after which a new sample is there: the session's own (``SessionRecord`` is
# saved just before its sample), so recording adds no message of its own to a session.
HISTORY_TOPIC = "scheduler.session"
VERSION = 1  # the layout of a sample's data (``monitoring/__init__.py``)


@dataclass(frozen=True, slots=True)
class Tier:
    """One resolution (seconds; 0: per session) and how long its samples are kept."""

    resolution: int
    keep: int


def _setting(name: str, default: str) -> str:
    value = getattr(settings, name, None)
    if value is None or value == "":
        value = os.environ.get(name)
    return default if value is None or value == "" else str(value)


def history_enabled() -> bool:
    """Return whether the worker records history (``VOLCANO_HISTORY_ENABLED``)."""
    return _setting("VOLCANO_HISTORY_ENABLED", "1").lower() not in ("0", "false", "no", "off")


def tiers() -> list[Tier]:
    """Return the configured tiers, finest first; a bad value names the setting."""
    text = _setting("VOLCANO_HISTORY_TIERS", DEFAULT_TIERS)
    out: list[Tier] = []
    try:
        for part in text.split(","):
            resolution, keep = part.split(":")
            out.append(Tier(int(resolution), int(keep)))
    except ValueError as exc:
        raise ImproperlyConfigured(
            f"VOLCANO_HISTORY_TIERS: expected 'resolution:keep,...' in seconds, got {text!r}"
        ) from exc
    for before, after in pairwise(out):
        if after.resolution <= before.resolution or before.keep < after.resolution:
            raise ImproperlyConfigured(
                "VOLCANO_HISTORY_TIERS: resolutions must grow and each tier must keep at "
                f"least the next one's resolution ({before.resolution}:{before.keep} then "
                f"{after.resolution}:{after.keep})"
            )
    if not out or out[0].resolution != 0:
        raise ImproperlyConfigured("VOLCANO_HISTORY_TIERS: the first tier must be resolution 0")
    return out


def record_session(*, now: datetime, sample: Mapping[str, Any]) -> HistorySample:
    """Store one session's sample (resolution 0) and return it.

    ``sample`` holds the session's figures as the scheduler built them; stored with the
    layout's version and, beside the latencies, their count per Volcano latency bucket
    (``monitoring.latency``), so roll-ups keep the distribution. Open Metrics pages refresh on
    the session's topic (``HISTORY_TOPIC``) and extend their charts.
    """
    latency = sample["latency"]
    data = {
        "v": VERSION,
        **sample,
        "latency": {
            **latency,
            "hist": histogram(latency["e2e"], latency["actions"], latency["plugins"]),
        },
    }
    return HistorySample.objects.create(at=now, resolution=0, samples=1, data=encode(data))


def _record_sample(report: SessionReport) -> None:
    """After a session: store its sample (the worker builds one when ``history_enabled``)."""
    if report.sample is not None:
        record_session(now=report.now, sample=report.sample)


def _record_nodes(report: SessionReport) -> None:
    """After a session: store every node's load when a node sample is due."""
    if report.node_loads is not None and history_enabled():
        record_node_sample(report.node_loads, now=report.now)


def _housekeeping(now: datetime) -> None:
    maybe_compact_history(now=now)


HISTORY_HOOK = SessionHook(
    name="monitoring.history",
    after=_record_sample,
    wants_sample=history_enabled,
    housekeeping=_housekeeping,
)
NODE_HISTORY_HOOK = SessionHook(name="monitoring.node-history", after=_record_nodes)


def _bucket(at: datetime, resolution: int) -> datetime:
    seconds = int(at.timestamp()) // resolution * resolution
    return datetime.fromtimestamp(seconds, tz=UTC)


def compact_history(*, now: datetime) -> dict[str, int]:
    """Roll finer samples up into each coarser tier, then delete samples past their keep.

    Only whole buckets (ended before ``now``) are rolled up, once each: a tier continues after
    its newest row. Returns ``{"rolled": rows written, "pruned": rows deleted}``.
    """
    rolled = pruned = 0
    levels = tiers()
    with transaction.atomic():
        for source, target in pairwise(levels):
            rolled += _roll_up(source.resolution, target.resolution, now)
        for tier in levels:
            cutoff = now - timedelta(seconds=tier.keep)
            pruned += HistorySample.objects.filter(
                resolution=tier.resolution, at__lt=cutoff
            ).delete()[0]
        # Tiers no longer configured go too.
        pruned += HistorySample.objects.exclude(
            resolution__in=[t.resolution for t in levels]
        ).delete()[0]
        nodes = compact_node_history(levels, now=now)  # the nodes' own samples, same tiers
        rolled, pruned = rolled + nodes["rolled"], pruned + nodes["pruned"]
    return {"rolled": rolled, "pruned": pruned}


def _roll_up(source: int, target: int, now: datetime) -> int:
    newest = (
        HistorySample.objects.filter(resolution=target).order_by("-at").values_list("at", flat=True)
    ).first()
    end = _bucket(now, target)  # buckets before this one are whole
    rows = HistorySample.objects.filter(resolution=source, at__lt=end)
    if newest is not None:
        rows = rows.filter(at__gte=newest + timedelta(seconds=target))
    buckets: dict[datetime, list[tuple[int, dict[str, Any]]]] = {}
    for at, samples, data in rows.order_by("at").values_list("at", "samples", "data").iterator():
        buckets.setdefault(_bucket(at, target), []).append((samples, decode(data)))
    HistorySample.objects.bulk_create(
        HistorySample(at=at, resolution=target, samples=sum(n for n, _ in group),
                      data=encode(merge_samples(group)))
        for at, group in buckets.items()
    )  # fmt: skip
    return len(buckets)


# When this process last compacted (clock()), if ever.
_last_compact: float | None = None


def maybe_compact_history(
    *, now: datetime, clock: Callable[[], float] = time.monotonic
) -> dict[str, int] | None:
    """Compact at most once per ``VOLCANO_HISTORY_COMPACT_PERIOD``; None when not yet due."""
    global _last_compact
    tick = clock()
    period = float(_setting("VOLCANO_HISTORY_COMPACT_PERIOD", "60"))
    if _last_compact is not None and tick - _last_compact < period:
        return None
    _last_compact = tick
    result = compact_history(now=now)
    if result["rolled"] or result["pruned"]:
        logger.info("history: %(rolled)d samples rolled up, %(pruned)d pruned", result)
    return result
