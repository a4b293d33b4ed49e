"""The queue charts: allocated and deserved per queue (stacked), shares, and pods."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go
from django.utils.translation import gettext as _

from console.units import axis_unit
from monitoring.charts.figures import NO_SESSIONS, PALETTE, empty_figure, figure, layout, scatter
from monitoring.history import QueueSeries

__all__ = ["queue_pods_figure", "queue_share_figure", "queue_stack_figure"]


def _scaled(values: Sequence[float | None], divisor: float) -> list[float | None]:
    return [None if v is None else round(v / divisor, 3) for v in values]


def queue_stack_figure(
    series: QueueSeries, *, key: str, note: str = "", uirevision: str = "queues"
) -> go.Figure:
    """Return every queue's ``key`` ("allocated" or "deserved") of the resource, stacked."""
    unit, divisor = axis_unit(series.resource)
    title = (
        _("%(resource)s: allocated per queue, stacked (%(unit)s)")
        if key == "allocated"
        else _("%(resource)s: deserved per queue, stacked (%(unit)s)")
    ) % {"resource": series.resource, "unit": unit}
    if not series.times or not series.queues:
        return empty_figure(NO_SESSIONS, title=title, uirevision=uirevision)
    traces: list[dict[str, Any]] = []
    for name, fields in series.queues.items():
        scatter(traces,
            name=name, x=series.times, y=_scaled(fields.get(key, []), divisor), mode="lines",
            stackgroup=key, legendgroup=name, line={"width": 0.5},
            hovertemplate=f"%{{y}} {unit}<extra>{name}</extra>",
        )  # fmt: skip
    fig = figure(traces)
    fig.update_layout(**layout(
        title, uirevision, yaxis={"title": {"text": unit}, "rangemode": "tozero"},
        note=note or "UTC",
    ))  # fmt: skip
    return fig


def queue_share_figure(
    series: QueueSeries, *, note: str = "", uirevision: str = "queues-share"
) -> go.Figure:
    """Return each queue's share over time (the sharing plugin's allocated/deserved; 1 = fair)."""
    title = _("Queue share: allocated / deserved (1 = its fair share)")
    if not series.times or not series.queues:
        return empty_figure(NO_SESSIONS, title=title, uirevision=uirevision)
    traces: list[dict[str, Any]] = []
    for name, fields in series.queues.items():
        scatter(traces, name=name, x=series.times, y=fields.get("share", []), mode="lines",
                        hovertemplate=f"%{{y:.3f}}<extra>{name}</extra>")  # fmt: skip
    fig = figure(traces)
    fig.add_hline(y=1.0, line={"dash": "dot", "width": 1}, opacity=0.6)
    fig.update_layout(**layout(
        title, uirevision, yaxis={"title": {"text": _("share")}, "rangemode": "tozero"},
        note=note or "UTC",
    ))  # fmt: skip
    return fig


def queue_pods_figure(
    series: QueueSeries, *, note: str = "", uirevision: str = "queues-pods"
) -> go.Figure:
    """Return pending (dashed) and running (solid) pods per queue over time."""
    title = _("Pods per queue: running (solid) and pending (dashed)")
    if not series.times or not series.queues:
        return empty_figure(NO_SESSIONS, title=title, uirevision=uirevision)
    traces: list[dict[str, Any]] = []
    for index, (name, fields) in enumerate(series.queues.items()):
        color = PALETTE[index % len(PALETTE)]
        for key, dash in (("pods_running", "solid"), ("pods_pending", "dash")):
            label = f"{name} {key.removeprefix('pods_')}"
            scatter(traces, name=label, x=series.times, y=fields.get(key, []), mode="lines",
                            legendgroup=name, line={"dash": dash, "color": color},
                            hovertemplate=f"%{{y:.0f}} pods<extra>{label}</extra>")  # fmt: skip
    fig = figure(traces)
    fig.update_layout(**layout(
        title, uirevision, yaxis={"title": {"text": _("pods")}, "rangemode": "tozero"},
        note=note or "UTC",
    ))  # fmt: skip
    return fig
