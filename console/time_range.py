"""The time range of an object page's charts, read from the URL (``?range=6h``).

One small selector (last hour by default, 6 h, 24 h, 7 d) for the queue, job and node pages:
in the URL so a link or a reload shows the same range, and a bad value falls back to the
default instead of failing the page.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.http import HttpRequest
from django.utils import timezone

__all__ = ["DEFAULT_RANGE", "RANGES", "TimeRange", "time_range"]

RANGES: dict[str, timedelta] = {
    "1h": timedelta(hours=1),
    "6h": timedelta(hours=6),
    "24h": timedelta(hours=24),
    "7d": timedelta(days=7),
}
DEFAULT_RANGE = "1h"


@dataclass(frozen=True, slots=True)
class TimeRange:
    """The range asked for: its key (``1h``), start and end, and the keys to offer."""

    key: str
    since: datetime
    until: datetime

    @property
    def choices(self) -> list[str]:
        """Return the selector's keys, in order."""
        return list(RANGES)


def time_range(request: HttpRequest, *, now: datetime | None = None) -> TimeRange:
    """Return the range in ``request``'s ``range`` parameter (unknown: the last hour)."""
    key = request.GET.get("range", DEFAULT_RANGE)
    if key not in RANGES:
        key = DEFAULT_RANGE
    until = now or timezone.now()
    return TimeRange(key=key, since=until - RANGES[key], until=until)
