"""What a Metrics page shows, read from its URL: the time range, the queues, the section.

Everything lives in the query string so a page can be bookmarked and shared:
``?range=1h`` (15m, 1h, 6h, 24h, 7d) or ``?range=custom&from=…&until=…`` (ISO 8601, UTC when
no offset is given), ``&queue=a&queue=b`` (none: every queue), ``&resource=cpu``,
``&section=latency``. A bad value is a ``QueryError`` naming the parameter; the page shows it
with a 400, never a 500.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.http import QueryDict
from django.utils.dateparse import parse_datetime
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy

__all__ = ["RANGES", "SECTIONS", "MetricsQuery", "QueryError", "parse_query"]

RANGES: dict[str, timedelta] = {
    "15m": timedelta(minutes=15),
    "1h": timedelta(hours=1),
    "6h": timedelta(hours=6),
    "24h": timedelta(hours=24),
    "7d": timedelta(days=7),
}
SECTIONS: dict[str, str | Promise] = {
    "latency": gettext_lazy("Scheduling latency"),
    "queues": gettext_lazy("Queues"),
    "drf": "DRF",
    "evictions": gettext_lazy("Evictions & unschedulable"),
}
DEFAULT_RANGE = "1h"
MAX_SPAN = timedelta(days=31)


class QueryError(ValueError):
    """A query parameter that cannot be read; ``field`` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True, slots=True)
class MetricsQuery:
    """The range (``since``..``until``, aware UTC), queues (empty: all), resource, section."""

    range: str
    since: datetime
    until: datetime
    queues: tuple[str, ...] = ()
    resource: str = "cpu"
    section: str = "latency"
    custom: dict[str, str] = field(default_factory=dict)  # the custom from/until as typed

    @property
    def live(self) -> bool:
        """Return whether the range ends now (a custom range in the past does not move)."""
        return self.range != "custom"


def _moment(params: QueryDict, name: str) -> datetime:
    text = params.get(name, "").strip()
    if not text:
        raise QueryError(name, "give a date and time, e.g. 2026-01-31T12:00")
    try:
        value = parse_datetime(text.replace(" ", "T"))
    except ValueError:
        value = None
    if value is None:
        raise QueryError(name, f"{text!r} is not a date and time (use e.g. 2026-01-31T12:00)")
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def parse_query(params: QueryDict, *, now: datetime) -> MetricsQuery:
    """Return what ``params`` asks for; raise ``QueryError`` naming the first bad parameter."""
    name = params.get("range", "") or DEFAULT_RANGE
    custom: dict[str, str] = {}
    if name == "custom":
        since, until = _moment(params, "from"), _moment(params, "until")
        custom = {"from": params.get("from", ""), "until": params.get("until", "")}
        if until <= since:
            raise QueryError("until", "must be after from")
        if until - since > MAX_SPAN:
            raise QueryError("from", "a custom range spans at most 31 days")
    elif name in RANGES:
        since, until = now - RANGES[name], now
    else:
        choices = ", ".join([*RANGES, "custom"])
        raise QueryError("range", f"{name!r} is not a range; choose one of {choices}")
    section = params.get("section", "") or "latency"
    if section not in SECTIONS:
        raise QueryError("section", f"{section!r} is not a section; choose {', '.join(SECTIONS)}")
    queues = tuple(dict.fromkeys(q.strip() for q in params.getlist("queue") if q.strip()))
    if any(len(q) > 253 for q in queues):
        raise QueryError("queue", "a queue name has at most 253 characters")
    resource = (params.get("resource", "") or "cpu").strip()
    if (
        len(resource) > 253
        or not resource.replace("/", "").replace(".", "").replace("-", "").isalnum()
    ):
        raise QueryError("resource", f"{resource[:40]!r} is not a resource name")
    return MetricsQuery(
        range=name, since=since, until=until, queues=queues, resource=resource,
        section=section, custom=custom,
    )  # fmt: skip
