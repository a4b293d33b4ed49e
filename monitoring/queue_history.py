"""A queue's share over time, the fragment its page loads: allocated against deserved, per
resource, from the recorded history.

The queue's page belongs to the queues app, below this one; it shows the history by loading
this fragment (``hx-get``), readable by every console role as the page itself. The range
(``?range=6h``) is the page's, passed on in the fragment's URL.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from accounts.roles import role_required
from console.charts import figure_data
from console.time_range import TimeRange, time_range
from monitoring.history import QueueSeries
from monitoring.sources import current_source
from queues.charts import queue_share_history_figure
from queues.models import Queue
from queues.selectors import shown_resources

__all__ = ["queue_history", "share_history"]

TAIL_POINTS = 120  # the newest per-session samples appended to a coarser series, at most


def _series(resource: str, span: TimeRange) -> QueueSeries:
    """Return every queue's allocated and deserved over ``span``, newest samples included.

    The tier the range picks (per minute for an hour) holds only whole buckets, rolled up
    once a minute; the per-session samples after its last bucket are appended (every k-th
    when there are more than ``TAIL_POINTS``), so a fresh cluster draws within a session.
    """
    source = current_source()
    fields = ("allocated", "deserved")
    series = source.queue_series(resource, span.since, span.until, fields=fields)
    if not series.resolution:
        return series
    start = span.since
    if series.times:
        last = datetime.fromisoformat(series.times[-1])
        start = max(start, last + timedelta(seconds=series.resolution))
    tail = source.queue_series(resource, start, span.until, fields=fields, resolution=0)
    stride = max(1, -(-len(tail.times) // TAIL_POINTS))
    keep = list(range(len(tail.times) - 1, -1, -stride))[::-1]  # the newest always kept
    before = len(series.times)
    series.times += [tail.times[i] for i in keep]
    for name in set(series.queues) | set(tail.queues):
        mine = series.queues.setdefault(name, {f: [None] * before for f in fields})
        theirs = tail.queues.get(name, {})
        for f in fields:
            values = theirs.get(f)
            mine[f] += [values[i] for i in keep] if values else [None] * len(keep)
    return series


def share_history(name: str, resources: list[str], span: TimeRange) -> list[tuple[str, str, Any]]:
    """Return ``(resource, element id, figure)`` of queue ``name``'s share over ``span``.

    Read from the recorded history (allocated and deserved per session, merged per minute or
    ten minutes for longer ranges), one chart per resource the queue's page shows; none for a
    resource it neither held nor deserved in the range, none at all when the queue has no
    sample in it.
    """
    charts = []
    for index, resource in enumerate(resources):
        series = _series(resource, span)
        mine = series.queues.get(name)
        if not series.times or mine is None:
            continue
        if not any(mine["allocated"]) and not any(mine["deserved"]):
            continue  # never held nor deserved any of it in the range: an empty chart
        figure = queue_share_history_figure(
            resource, series.times, mine["allocated"], mine["deserved"]
        )
        charts.append((resource, f"queue-history-{index}", figure_data(figure)))
    return charts


@role_required()
def queue_history(request: HttpRequest, name: str) -> HttpResponse:
    """Render queue ``name``'s share over the range in the URL (the section's content)."""
    queue = get_object_or_404(Queue, name=name)
    span = time_range(request)
    context = {
        "range": span,
        "share_charts": share_history(name, shown_resources([queue]), span),
    }
    response = render(request, "monitoring/_queue_history.html", context)
    response["Vary"] = "HX-Request, HX-Target"
    return response
