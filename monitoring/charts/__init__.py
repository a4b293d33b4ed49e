"""The Metrics charts: pure functions from series (``monitoring.history``'s shapes) to figures.

No query and no clock here: ``monitoring.panels`` reads the source and hands the series in, so
each figure can be tested from series made by hand. Times are ISO strings (UTC); amounts
arrive in the engine's milli-units and are drawn in each resource's unit (``axis_unit``);
latencies in milliseconds. A chart with nothing to draw says so in its middle.

One module per kind of chart: ``latency``, ``queues``, ``drf``, ``counts`` (evictions and
unschedulable work); ``figures`` is the kit they draw with.
"""

from __future__ import annotations

from monitoring.charts.counts import evictions_figure, unschedulable_figure
from monitoring.charts.drf import drf_jobs_figure, drf_now_figure, drf_queue_figure
from monitoring.charts.figures import NO_SESSIONS, empty_figure
from monitoring.charts.latency import latency_histogram_figure, latency_quantile_figure, windows
from monitoring.charts.queues import queue_pods_figure, queue_share_figure, queue_stack_figure

__all__ = [
    "NO_SESSIONS",
    "drf_jobs_figure",
    "drf_now_figure",
    "drf_queue_figure",
    "empty_figure",
    "evictions_figure",
    "latency_histogram_figure",
    "latency_quantile_figure",
    "queue_pods_figure",
    "queue_share_figure",
    "queue_stack_figure",
    "unschedulable_figure",
    "windows",
]
