"""The session count charts: evictions per point (by action or queue) and unschedulable work."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go
from django.utils.translation import gettext as _

from monitoring.charts.figures import NO_SESSIONS, bar, empty_figure, figure, layout, scatter
from monitoring.history import SessionSeries

__all__ = ["evictions_figure", "unschedulable_figure"]


def evictions_figure(
    series: SessionSeries, *, by: str, queues: Sequence[str] = (), uirevision: str = "evictions"
) -> go.Figure:
    """Return evictions over time, stacked by action (``by`` "action") or by queue ("queue")."""
    title = (
        _("Evictions per point, by action")
        if by == "action"
        else _("Evictions per point, by queue")
    )
    if not series.times:
        return empty_figure(NO_SESSIONS, title=title, uirevision=uirevision)
    named = series.evictions_by_action if by == "action" else series.evictions_by_queue
    if by == "queue" and queues:
        named = {q: v for q, v in named.items() if q in queues}
    named = {name: values for name, values in named.items() if any(values)}
    if not named:
        return empty_figure(_("No evictions in this range"), title=title, uirevision=uirevision)
    traces: list[dict[str, Any]] = []
    for name, values in sorted(named.items()):
        bar(traces, name=name, x=series.times, y=values,
                    hovertemplate=f"%{{y}} evicted<extra>{name}</extra>")  # fmt: skip
    fig = figure(traces)
    fig.update_layout(
        **layout(title, uirevision, barmode="stack", yaxis={"title": {"text": _("pods evicted")}})
    )
    return fig


def unschedulable_figure(series: SessionSeries, *, uirevision: str = "unschedulable") -> go.Figure:
    """Return unschedulable jobs and tasks over time: the most waiting at once in each point."""
    title = _("Unschedulable jobs and tasks per point")
    if not series.times:
        return empty_figure(NO_SESSIONS, title=title, uirevision=uirevision)
    traces: list[dict[str, Any]] = []
    waiting = _("unschedulable")
    for key, label in (("unschedulable_jobs", _("jobs")), ("unschedulable_tasks", _("tasks"))):
        scatter(traces, name=label, x=series.times, y=series.counts.get(key, []), mode="lines",
                        hovertemplate=f"%{{y}} {label}<extra>{waiting}</extra>")  # fmt: skip
    fig = figure(traces)
    fig.update_layout(
        **layout(title, uirevision, yaxis={"title": {"text": _("count")}, "rangemode": "tozero"})
    )
    return fig
