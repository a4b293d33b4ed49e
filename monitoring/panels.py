"""The Metrics pages' charts: which series each reads from the source and which figure it draws.

A *panel* is one chart: a name (its URL and element id), the section it belongs to, and a data
function ``(reader, query) -> Figure``. The ``Reader`` wraps the page's ``MetricsSource`` and
remembers each read for one request, so the three queue charts of a resource read the history
once. ``bench/metrics_pages.py`` times each panel's data function with a fresh reader.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import plotly.graph_objects as go

from monitoring import charts
from monitoring.history import QueueSeries, SessionSeries
from monitoring.ranges import MetricsQuery
from monitoring.sources import MetricsSource

__all__ = ["BUSIEST", "PANELS", "Panel", "Reader", "panel", "panels_of"]

ROOT = "root"  # Volcano's root queue, parent of every queue
BUSIEST = 10  # queue charts without a queue filter: the busiest queues, so 100 stay readable
TOP_JOBS = 10
_QUEUE_FIELDS = ("allocated", "deserved", "share", "pods_pending", "pods_running")


class Reader:
    """One request's reads from a source, each made once."""

    def __init__(self, source: MetricsSource, query: MetricsQuery) -> None:
        self.source = source
        self.query = query
        self._queues: QueueSeries | None = None
        self._sessions: SessionSeries | None = None
        self._jobs: dict[str, Any] | None = None

    def sessions(self) -> SessionSeries:
        """Return the sessions' latencies and counts over the range."""
        if self._sessions is None:
            self._sessions = self.source.session_series(self.query.since, self.query.until)
        return self._sessions

    def job_shares(self) -> dict[str, Any]:
        """Return the DRF shares over the range."""
        if self._jobs is None:
            self._jobs = self.source.job_share_series(self.query.since, self.query.until)
        return self._jobs

    def queues(self) -> tuple[QueueSeries, str]:
        """Return the queue series of the chosen queues (or the busiest) and a note saying which."""
        if self._queues is None:
            q = self.query
            self._queues = self.source.queue_series(q.resource, q.since, q.until,
                                                    fields=_QUEUE_FIELDS)  # fmt: skip
        series = self._queues
        if self.query.queues:
            chosen = [n for n in self.query.queues if n in series.queues]
            note = f"UTC · queues: {', '.join(self.query.queues)}"
        else:
            chosen = _busiest(series, BUSIEST)
            shown = len([n for n in series.queues if n != ROOT])
            note = (f"UTC · the {len(chosen)} busiest of {shown} queues (pick "
                    "queues above)" if shown > len(chosen) else "UTC")  # fmt: skip
        picked = QueueSeries(
            resource=series.resource,
            resolution=series.resolution,
            times=series.times,
            queues={n: series.queues[n] for n in chosen},
        )
        return picked, note


def _busiest(series: QueueSeries, count: int) -> list[str]:
    """Return the ``count`` queues holding the most of the resource over the range (by name
    for ties), in name order.

    ``root`` is left out: it holds no job of its own (its children's sum under the capacity
    plugin's hierarchy), so stacked with them it would count everything twice. Picking it in
    the queue filter still draws it.
    """

    def load(name: str) -> float:
        fields = series.queues[name]
        held = [v for v in fields.get("allocated", []) if v is not None]
        pods = [v for v in fields.get("pods_running", []) if v is not None]
        return (sum(held) / len(held) if held else 0.0) + (sum(pods) if pods else 0.0) * 1e-9

    ranked = sorted((n for n in series.queues if n != ROOT), key=lambda n: (-load(n), n))[:count]
    return sorted(ranked)


@dataclass(frozen=True, slots=True)
class Panel:
    """One chart of the Metrics pages."""

    name: str
    section: str
    build: Callable[[Reader], go.Figure]
    wide: bool = False


def _queues(reader: Reader, build: Callable[[QueueSeries, str], go.Figure]) -> go.Figure:
    series, note = reader.queues()
    return build(series, note)


PANELS: tuple[Panel, ...] = (
    Panel("latency-e2e", "latency",
          lambda r: charts.latency_quantile_figure(r.sessions(), component="e2e")),
    Panel("latency-histogram", "latency", lambda r: charts.latency_histogram_figure(r.sessions())),
    Panel("latency-actions", "latency",
          lambda r: charts.latency_quantile_figure(r.sessions(), component="actions")),
    Panel("latency-plugins", "latency",
          lambda r: charts.latency_quantile_figure(r.sessions(), component="plugins")),
    Panel("queue-allocated", "queues", lambda r: _queues(
        r, lambda s, n: charts.queue_stack_figure(s, key="allocated", note=n,
                                                  uirevision="queue-allocated"))),
    Panel("queue-deserved", "queues", lambda r: _queues(
        r, lambda s, n: charts.queue_stack_figure(s, key="deserved", note=n,
                                                  uirevision="queue-deserved"))),
    Panel("queue-share", "queues",
          lambda r: _queues(r, lambda s, n: charts.queue_share_figure(s, note=n))),
    Panel("queue-pods", "queues",
          lambda r: _queues(r, lambda s, n: charts.queue_pods_figure(s, note=n))),
    Panel("drf-now", "drf",
          lambda r: charts.drf_now_figure(r.job_shares(), queues=r.query.queues)),
    Panel("drf-jobs", "drf", lambda r: charts.drf_jobs_figure(
        r.job_shares(), queues=r.query.queues, top=TOP_JOBS)),
    Panel("drf-queues", "drf",
          lambda r: charts.drf_queue_figure(r.job_shares(), queues=r.query.queues), wide=True),
    Panel("evictions-action", "evictions",
          lambda r: charts.evictions_figure(r.sessions(), by="action", uirevision="ev-action")),
    Panel("evictions-queue", "evictions", lambda r: charts.evictions_figure(
        r.sessions(), by="queue", queues=r.query.queues, uirevision="ev-queue")),
    Panel("unschedulable", "evictions", lambda r: charts.unschedulable_figure(r.sessions()),
          wide=True),
)  # fmt: skip
_BY_NAME = {p.name: p for p in PANELS}


def panel(name: str) -> Panel | None:
    """Return the panel called ``name``, if there is one."""
    return _BY_NAME.get(name)


def panels_of(section: str) -> list[Panel]:
    """Return the panels of ``section`` in page order."""
    return [p for p in PANELS if p.section == section]
