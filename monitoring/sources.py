"""Where the Metrics pages read their series: the built-in history, or a Prometheus.

The pages ask one ``MetricsSource`` for series over a time range and draw what comes back, so
a chart is the same chart whichever source answers. The built-in history
(``monitoring.history``) is the default; when ``PROMETHEUS_URL`` is set the same methods are
answered by that Prometheus' ``query_range`` (``monitoring.prometheus``), and the page names the
source it shows (``label``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from django.conf import settings
from django.utils.translation import gettext

from monitoring import history
from monitoring.history import QueueSeries, SessionSeries
from monitoring.prometheus import PrometheusSource

__all__ = ["HistorySource", "MetricsSource", "current_source"]


class MetricsSource(Protocol):
    """What a chart can ask for; every method returns ``monitoring.history``'s shapes."""

    name: str  # "history" or "prometheus"

    @property
    def label(self) -> str:
        """What the page says it shows, e.g. "built-in history" (in the reader's language)."""
        ...

    def queue_series(
        self,
        resource: str,
        since: datetime,
        until: datetime,
        *,
        fields: tuple[str, ...] = history.QUEUE_FIELDS,
        resolution: int | None = None,
    ) -> QueueSeries:
        """Every queue's ``fields`` for ``resource`` (milli-units) over the range."""
        ...

    def session_series(
        self, since: datetime, until: datetime, *, resolution: int | None = None
    ) -> SessionSeries:
        """The sessions' latencies (ms) and counts over the range."""
        ...

    def job_share_series(
        self, since: datetime, until: datetime, *, resolution: int | None = None
    ) -> dict[str, Any]:
        """Per queue the running jobs' DRF share (count, mean, max), the top jobs of the last
        sample, and ``jobs``: each top job's share over the range (``history.job_share_series``)."""
        ...


class HistorySource:
    """The history the worker records in the database (no extra service)."""

    name = "history"

    @property
    def label(self) -> str:
        """What the page says it shows."""
        return gettext("built-in history")

    def queue_series(
        self,
        resource: str,
        since: datetime,
        until: datetime,
        *,
        fields: tuple[str, ...] = history.QUEUE_FIELDS,
        resolution: int | None = None,
    ) -> QueueSeries:
        """Read ``monitoring.history.queue_series``."""
        return history.queue_series(resource, since, until, fields=fields, resolution=resolution)

    def session_series(
        self, since: datetime, until: datetime, *, resolution: int | None = None
    ) -> SessionSeries:
        """Read ``monitoring.history.session_series``."""
        return history.session_series(since, until, resolution=resolution)

    def job_share_series(
        self, since: datetime, until: datetime, *, resolution: int | None = None
    ) -> dict[str, Any]:
        """Read ``monitoring.history.job_share_series``."""
        return history.job_share_series(since, until, resolution=resolution)


def current_source() -> MetricsSource:
    """Return the source the Metrics pages read now: the Prometheus at ``PROMETHEUS_URL`` when
    it is set, else the built-in history.

    A malformed ``PROMETHEUS_URL`` raises ``PrometheusError`` (a sentence naming the setting),
    as an unreachable Prometheus does on the first read: the page shows it, never a 500.
    """
    url = getattr(settings, "PROMETHEUS_URL", "")
    if not url:
        return HistorySource()
    return PrometheusSource(
        url,
        token=getattr(settings, "PROMETHEUS_TOKEN", ""),
        timeout=getattr(settings, "PROMETHEUS_TIMEOUT", 5.0),
        scrape_interval=getattr(settings, "PROMETHEUS_SCRAPE_INTERVAL", 15),
    )
