"""A job's charts: its pods' pending → running timeline and its DRF share over time.

Pure functions from plain spans and steps (``jobs.timeline``) to Plotly figures; the job page
embeds them and ``static/console/charts.js`` draws them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import plotly.graph_objects as go
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from console.charts import base_layout
from jobs.timeline import PodSpan, ShareSteps

__all__ = ["SEGMENTS", "drf_share_figure", "pod_timeline_figure"]

# One bar per stage of a pod's life: (name, colour).
SEGMENTS = (
    ("pending", "#f59e0b"),  # created → bound: waiting for the scheduler
    ("starting", "#a3b8d9"),  # bound → started: the node's runtime pulling and starting it
    ("running", "#3b82f6"),  # started → finished (or now)
)
# What the legend and the hover call each stage.
STAGE_NAMES = {
    "pending": gettext_lazy("pending"),
    "starting": gettext_lazy("starting"),
    "running": gettext_lazy("running"),
}


def _iso(at: datetime) -> str:
    return at.isoformat()


def _ms(start: datetime, end: datetime) -> float:
    return max((end - start).total_seconds() * 1000, 0.0)


def pod_timeline_figure(
    spans: Sequence[PodSpan], *, now: datetime, since: datetime | None = None
) -> go.Figure:
    """Return a Gantt chart: one row per pod, a bar per stage (pending, starting, running).

    A stage not over yet runs to ``now``; a pod that ended before it was bound or started
    shows only what it went through. ``since`` starts the visible range (the page's time
    range), never before the first pod was created.
    """
    rows: dict[str, tuple[list[str], list[str], list[float], list[str]]] = {
        name: ([], [], [], []) for name, _colour in SEGMENTS
    }

    def add(stage: str, pod: PodSpan, start: datetime, end: datetime | None) -> None:
        stop = end or now
        names, bases, lengths, hovers = rows[stage]
        names.append(pod.name)
        bases.append(_iso(start))
        lengths.append(_ms(start, stop))
        seconds = (stop - start).total_seconds()
        took = (_("%(seconds)s s") if end else _("%(seconds)s s so far")) % {
            "seconds": f"{seconds:.0f}"
        }
        hovers.append(f"{pod.name}<br>{STAGE_NAMES[stage]}: {took}")

    for pod in spans:
        ended = pod.finished
        add("pending", pod, pod.created, pod.scheduled or ended)
        if pod.scheduled is not None:
            add("starting", pod, pod.scheduled, pod.started or ended)
        if pod.started is not None:
            add("running", pod, pod.started, ended)
    first = min((p.created for p in spans), default=now)
    start = max(first, since) if since is not None else first
    # Built from our own numbers and names: plotly.py's per-property checks (tens of
    # milliseconds a figure, on every live refresh of the job's page) would check nothing new.
    fig = go.Figure(
        layout=go.Layout(
            base_layout(
                uirevision="pod-timeline",
                barmode="overlay",
                xaxis={"type": "date", "range": [_iso(start), _iso(now)], "nticks": 6},
                yaxis={"autorange": "reversed", "type": "category", "automargin": True},
                height=min(120 + 22 * len(spans), 640),
                legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
                margin={"l": 48, "r": 16, "t": 28, "b": 32},
            ),
            _validate=False,
        )
    )
    for stage, colour in SEGMENTS:
        names, bases, lengths, hovers = rows[stage]
        fig.add_trace(go.Bar(
            name=str(STAGE_NAMES[stage]), y=names, base=bases, x=lengths, orientation="h",
            marker={"color": colour}, hovertext=hovers, hovertemplate="%{hovertext}<extra></extra>",
            _validate=False,
        ))  # fmt: skip
    return fig


def drf_share_figure(steps: ShareSteps) -> go.Figure:
    """Return the job's dominant share over time (0-100 %), its dominant resource in the hover.

    A step line: the share changes only when a pod is bound or ends.
    """
    percent = [round(100 * s, 2) for s in steps.shares]
    top = max(percent, default=0.0)
    fig = go.Figure(
        layout=go.Layout(
            base_layout(
                uirevision="job-drf-share",
                xaxis={"type": "date"},
                yaxis={
                    "title": {"text": _("share of the cluster (%)")},
                    "ticksuffix": "%",
                    "range": [0, max(top * 1.15, 1.0)],
                },
                height=240,
                showlegend=False,
            ),
            _validate=False,
        )
    )
    fig.add_trace(go.Scatter(
        name=_("dominant share"), x=[_iso(t) for t in steps.times], y=percent,
        customdata=steps.dominant, mode="lines", fill="tozeroy",
        line={"shape": "hv", "color": "#3b82f6", "width": 2},
        hovertemplate="%{x}<br>%{y:.2f}% of the cluster's %{customdata}<extra></extra>",
        _validate=False,
    ))  # fmt: skip
    return fig
