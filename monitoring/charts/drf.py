"""The DRF charts: dominant share per queue over time, of the top jobs, and DRF's order now."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go
from django.utils.translation import gettext as _

from console.charts import base_layout
from monitoring.charts.figures import (
    HEIGHT,
    NO_SESSIONS,
    bar,
    empty_figure,
    figure,
    layout,
    scatter,
)

__all__ = ["drf_jobs_figure", "drf_now_figure", "drf_queue_figure"]


def drf_queue_figure(
    shares: Mapping[str, Any],
    *,
    queues: Sequence[str] = (),
    busiest: int = 10,
    uirevision: str = "drf-queues",
) -> go.Figure:
    """Return per queue its running jobs' mean DRF dominant share (solid) and max (dotted):
    the chosen ``queues``, else the ``busiest`` by mean share over the range."""
    title = _("DRF dominant share per queue: mean of its running jobs (max dotted)")
    times = shares.get("times", [])
    per_queue = {q: v for q, v in shares.get("queues", {}).items() if not queues or q in queues}
    if not times or not per_queue:
        return empty_figure(NO_SESSIONS if not times else _("No running jobs with a DRF share"),
                            title=title, uirevision=uirevision)  # fmt: skip
    note = "UTC"
    if not queues and len(per_queue) > busiest:

        def load(name: str) -> float:
            values = [v for v in per_queue[name]["mean"] if v is not None]
            return sum(values) / len(values) if values else 0.0

        chosen = sorted(per_queue, key=lambda n: (-load(n), n))[:busiest]
        note = _("UTC · the %(shown)s queues of %(total)s with the highest mean share") % {
            "shown": busiest,
            "total": len(per_queue),
        }
        per_queue = {n: per_queue[n] for n in chosen}
    traces: list[dict[str, Any]] = []
    for name, values in sorted(per_queue.items()):
        scatter(
            traces,
            name=_("%(queue)s mean") % {"queue": name},
            x=times,
            y=values["mean"],
            mode="lines",
            legendgroup=name,
            hovertemplate=f"%{{y:.4f}}<extra>{name} mean</extra>",
        )
        scatter(traces, name=_("%(queue)s max") % {"queue": name}, x=times, y=values["max"], mode="lines",
                        legendgroup=name, line={"dash": "dot"}, visible="legendonly",
                        hovertemplate=f"%{{y:.4f}}<extra>{name} max</extra>")  # fmt: skip
    fig = figure(traces)
    fig.update_layout(**layout(
        title, uirevision, note=note,
        yaxis={"title": {"text": _("dominant share")}, "rangemode": "tozero"},
    ))  # fmt: skip
    return fig


def _short(uid: str, width: int = 30) -> str:
    """Return ``uid`` cut to ``width`` characters for a label (the hover keeps it whole)."""
    return uid if len(uid) <= width else uid[: width - 1] + "…"


def _top_jobs(shares: Mapping[str, Any], queues: Sequence[str]) -> dict[str, dict[str, Any]]:
    return {
        uid: job
        for uid, job in shares.get("jobs", {}).items()
        if not queues or job["queue"] in queues
    }


def drf_jobs_figure(
    shares: Mapping[str, Any], *, queues: Sequence[str] = (), top: int = 10,
    uirevision: str = "drf-jobs",
) -> go.Figure:  # fmt: skip
    """Return the DRF share over time of the ``top`` jobs with the largest latest share, each
    named with its queue and dominant resource.

    Only the top N running jobs are recorded per sample, so a line has gaps where its job was
    not among them; the chart says so.
    """
    title = _(
        "DRF dominant share of the top %(count)s jobs (gaps: not among the recorded top N)"
    ) % {"count": top}
    times = shares.get("times", [])
    jobs = _top_jobs(shares, queues)
    if not times or not jobs:
        return empty_figure(NO_SESSIONS if not times else _("No running jobs with a DRF share"),
                            title=title, uirevision=uirevision)  # fmt: skip

    def latest(job: dict[str, Any]) -> float:
        return next((v for v in reversed(job["share"]) if v is not None), 0.0)

    traces: list[dict[str, Any]] = []
    for uid, job in sorted(jobs.items(), key=lambda kv: -latest(kv[1]))[:top]:
        # a Prometheus names no dominant resource (Volcano exports the share alone)
        dominant = f", dominant: {job['dominant']}" if job["dominant"] else ""
        label = f"{_short(uid)} ({job['queue']}{dominant})"
        scatter(traces, name=label, x=times, y=job["share"], mode="lines+markers",
                        marker={"size": 5}, connectgaps=False,
                        hovertemplate=f"%{{y:.4f}}<extra>{uid}{dominant}</extra>")  # fmt: skip
    fig = figure(traces)
    fig.update_layout(
        **layout(
            title, uirevision, yaxis={"title": {"text": _("dominant share")}, "rangemode": "tozero"}
        )
    )
    return fig


def drf_now_figure(
    shares: Mapping[str, Any], *, queues: Sequence[str] = (), uirevision: str = "drf-now"
) -> go.Figure:
    """Return the latest sample's recorded jobs as bars in DRF's order: lowest dominant share
    first, the one DRF serves first; bar colour = the dominant resource."""
    title = _("DRF order now: lowest dominant share is served first (recorded top jobs)")
    top = [row for row in shares.get("top", []) if not queues or row[1] in queues]
    if not top:
        return empty_figure(
            NO_SESSIONS if not shares.get("times") else _("No running jobs with a DRF share"),
            title=title, uirevision=uirevision,
        )  # fmt: skip
    top = sorted(top, key=lambda row: (row[2], row[0]))
    traces: list[dict[str, Any]] = []
    for dominant in sorted({row[3] for row in top}):
        rows = [row for row in top if row[3] == dominant]
        bar(traces,
            name=_("dominant: %(resource)s") % {"resource": dominant} if dominant else _("share"), x=[r[2] for r in rows], y=[r[0] for r in rows],
            orientation="h", customdata=[[r[1], top.index(r) + 1] for r in rows],
            hovertemplate="%{y}: %{x:.4f} (queue %{customdata[0]}, served #%{customdata[1]})"
                          f"<extra>{dominant}</extra>",
        )  # fmt: skip
    fig = figure(traces)
    fig.update_layout(**base_layout(
        title=title, uirevision=uirevision, height=max(HEIGHT, 18 * len(top) + 80),
        xaxis={"title": {"text": _("dominant share")}, "rangemode": "tozero"},
        yaxis={"categoryorder": "array", "categoryarray": [r[0] for r in reversed(top)],
               "tickvals": [r[0] for r in top], "ticktext": [_short(r[0]) for r in top],
               "automargin": True},
    ))  # fmt: skip
    return fig
