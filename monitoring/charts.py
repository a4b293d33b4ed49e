"""The Metrics charts: pure functions from series (``monitoring.history``'s shapes) to figures.

No query and no clock here: ``monitoring.panels`` reads the source and hands the series in, so
each figure can be tested from series made by hand. Times are ISO strings (UTC); amounts
arrive in the engine's milli-units and are drawn in each resource's unit (``axis_unit``);
latencies in milliseconds. A chart with nothing to draw says so in its middle.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

import numpy as np
import plotly.graph_objects as go
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from console.charts import base_layout
from console.units import axis_unit
from monitoring.history import QueueSeries, SessionSeries
from monitoring.latency import BOUNDS, add_counts, bucket_range, quantile

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

NO_SESSIONS = gettext_lazy("No sessions recorded in this range yet")
QUANTILES = (("p50", 50, "dot"), ("p95", 95, "solid"), ("p99", 99, "dash"))
SHOWN_COMPONENTS = 5  # plugins drawn at first (the slowest); the others wait in the legend
# Plotly's own first colours, fixed so a name's three quantile lines share one
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")  # fmt: skip
WINDOW_POINTS = 60  # quantiles over time: about this many points, whatever the range
_HEIGHT = 320


class _Figure(go.Figure):
    """A figure whose export does not deep-copy its values again.

    ``go.Figure.to_dict`` (what ``to_json`` and so ``figure_data`` start with) deep-copies
    every trace and walks every value looking for arrays to encode: for a week's chart of
    20 traces of 1,200 points that was a fifth of its data's time. The figures here hold
    lists of plain numbers and strings that nothing changes after the build, so a shallow
    copy of each trace and of the layout is enough.
    """

    def to_dict(self) -> dict[str, Any]:
        """Return the data and layout (shallow copies; the values are shared)."""
        return {"data": [dict(trace) for trace in self._data], "layout": dict(self._layout)}


def _figure(traces: list[dict[str, Any]]) -> go.Figure:
    """Return a figure of ``traces`` that skips plotly.py's per-value validation.

    A day per minute is 1,440 points per trace; validating every value cost about five times
    building the figure (``bench/metrics_pages.py``), and these figures are built from typed
    series by the functions below, which the tests check.
    """
    return _Figure(data=traces, _validate=False)


class _Shared(list[Any]):
    """A trace's values that plotly.py does not deep-copy: the figure constructor copies every
    trace (``deepcopy``), one call per value, a quarter of a week's chart; these lists are
    built for the one figure and nothing changes them after."""

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self


def _shared(trace: dict[str, Any]) -> dict[str, Any]:
    for key in ("x", "y", "customdata"):
        if isinstance(trace.get(key), list):
            trace[key] = _Shared(trace[key])
    return trace


def _scatter(traces: list[dict[str, Any]], **trace: Any) -> None:
    traces.append(_shared({"type": "scatter", **trace}))


def _bar(traces: list[dict[str, Any]], **trace: Any) -> None:
    traces.append(_shared({"type": "bar", **trace}))


def _layout(title: str, uirevision: str, *, note: str = "", **extra: Any) -> dict[str, Any]:
    """Return the layout: ``title`` with ``note`` under it (what a point is, which queues)."""
    extra.setdefault("hovermode", "x unified")
    extra.setdefault("height", _HEIGHT)
    layout = base_layout(title=title, uirevision=uirevision, **extra)
    if note:
        layout["title"]["subtitle"] = {"text": note, "font": {"size": 11}}
        layout["margin"] = {**layout["margin"], "t": 54}
    return layout


def empty_figure(
    message: str | Promise, *, title: str = "", uirevision: str = "empty"
) -> go.Figure:
    """Return a figure that says ``message`` where the chart would be."""
    fig = _figure([])
    fig.update_layout(
        **base_layout(title=title, uirevision=uirevision, height=_HEIGHT),
        xaxis={"visible": False}, yaxis={"visible": False},
        annotations=[{"text": str(message), "showarrow": False, "xref": "paper", "yref": "paper",
                      "x": 0.5, "y": 0.5, "font": {"size": 14}}],
    )  # fmt: skip
    return fig


def windows(times: Sequence[str], *, points: int = WINDOW_POINTS) -> list[tuple[str, slice]]:
    """Return ``(time of the window's first point, slice)`` cutting ``times`` into at most
    ``points`` windows of equal count, so quantiles have several values each."""
    size = max(1, math.ceil(len(times) / points))
    return [(times[i], slice(i, i + size)) for i in range(0, len(times), size)]


def _quantiles(
    values: Sequence[float | None],
    cuts: list[tuple[str, slice]],
    counts: Sequence[Mapping[str, int] | None] = (),
    component: str = "e2e",
) -> dict[str, list[float | None]]:
    """Return p50/p95/p99 per window: of the recorded values, or, where ``counts`` gives
    every point of a window its sessions per latency bucket, of those sessions (the
    buckets summed, ``monitoring.latency.quantile``)."""
    out: dict[str, list[float | None]] = {name: [] for name, _q, _d in QUANTILES}
    for _at, part in cuts:
        window = counts[part] if counts else []
        if window and all(c is not None for c in window):
            summed: dict[str, int] = {}
            for c in window:
                add_counts(summed, c or {})
            for name, q, _dash in QUANTILES:
                value = quantile(q / 100, component, summed)
                out[name].append(None if value is None else round(value, 3))
            continue
        chunk = [v for v in values[part] if v is not None]
        for name, q, _dash in QUANTILES:
            out[name].append(round(float(np.percentile(chunk, q)), 3) if chunk else None)
    return out


def _counts_of(series: SessionSeries, component: str) -> dict[str, list[Mapping[str, int] | None]]:
    """Return per name (``session`` for e2e) its bucket counts per point (None where a point
    has none) when the points cover many sessions; else nothing (the values are used)."""
    hists = series.histograms
    if series.resolution == 0 or len(hists) != len(series.times) or not any(hists):
        return {}
    if component == "e2e":
        return {_("session"): [None if h is None else h["e2e"] for h in hists]}
    names = series.action_ms if component == "actions" else series.plugin_ms
    return {n: [None if h is None else h[component].get(n, {}) for h in hists] for n in names}


def _most(quantiles: Mapping[str, Mapping[str, list[float | None]]], count: int) -> set[str]:
    """Return the ``count`` names with the highest mean p95."""

    def mean_p95(name: str) -> float:
        values = [v for v in quantiles[name]["p95"] if v is not None]
        return sum(values) / len(values) if values else 0.0

    return set(sorted(quantiles, key=lambda n: (-mean_p95(n), n))[:count])


def latency_quantile_figure(
    series: SessionSeries, *, component: str, uirevision: str = "latency"
) -> go.Figure:
    """Return p50/p95/p99 over time of the session (``component`` "e2e"), each action
    ("actions") or each plugin ("plugins"), in ms.

    A point is a window of recorded points: sessions at an hour or less, per-minute or
    per-ten-minute means beyond (the max line keeps the slowest session for "e2e").
    """
    titles = {
        "e2e": _("Session end-to-end latency: p50 / p95 / p99 (ms)"),
        "actions": _("Per action latency: p50 / p95 / p99 (ms)"),
        "plugins": _("Per plugin latency: p50 / p95 / p99 (ms)"),
    }
    title = titles[component]
    if not series.times:
        return empty_figure(NO_SESSIONS, title=title, uirevision=uirevision)
    cuts = windows(series.times)
    x = [at for at, _ in cuts]
    traces: list[dict[str, Any]] = []
    named: Mapping[str, Sequence[float | None]]
    if component == "e2e":
        named = {_("session"): series.e2e_ms}
    else:
        named = series.action_ms if component == "actions" else series.plugin_ms
    if not named:
        return empty_figure(_("No %(component)s timings recorded in this range") % {"component": component}, title=title,
                            uirevision=uirevision)  # fmt: skip
    counts = _counts_of(series, component)
    quantiles = {
        name: _quantiles(values, cuts, counts.get(name, ()), component)
        for name, values in named.items()
    }
    shown = _most(quantiles, SHOWN_COMPONENTS) if component == "plugins" else set(quantiles)
    for index, (name, by_label) in enumerate(quantiles.items()):
        color = PALETTE[index % len(PALETTE)]
        for label, values_of in by_label.items():
            dash = next(d for n, _q, d in QUANTILES if n == label)
            # e2e: a legend entry per quantile; actions and plugins: one per name (its p95),
            # the p50 and p99 lines in its colour follow it when the legend toggles it
            _scatter(traces,
                name=f"{name} {label}", x=x, y=values_of, mode="lines",
                legendgroup=name if component != "e2e" else label,
                showlegend=component == "e2e" or label == "p95",
                line={"dash": dash, "color": color if component != "e2e" else None,
                      "width": 2 if label == "p95" else 1},
                visible=True if name in shown else "legendonly",
                hovertemplate=f"%{{y:.2f}} ms<extra>{name} {label}</extra>",
            )  # fmt: skip
    if component == "e2e" and series.e2e_max_ms:
        peaks = [
            max((v for v in series.e2e_max_ms[part] if v is not None), default=None)
            for _at, part in cuts
        ]
        _scatter(traces, name=_("slowest"), x=x, y=peaks, mode="lines", line={"width": 1},
                        opacity=0.5, hovertemplate="%{y:.2f} ms<extra>slowest</extra>")  # fmt: skip
    if series.resolution == 0:
        unit = _("sessions")
    elif counts:
        unit = _("%(seconds)s s buckets of sessions, quantiles from Volcano's latency buckets") % {
            "seconds": series.resolution
        }
    else:
        unit = _("%(seconds)s s means") % {"seconds": series.resolution}
    note = _("UTC · a point: %(count)s %(unit)s") % {
        "count": len(series.times[cuts[0][1]]),
        "unit": unit,
    }
    if component != "e2e":
        note += " · " + _("p95 solid, p50 dotted, p99 dashed")
    if len(shown) < len(quantiles):
        note += " · " + _("the %(count)s slowest shown (more in the legend)") % {
            "count": len(shown)
        }
    fig = _figure(traces)
    fig.update_layout(**_layout(
        title, uirevision, note=note, height=_HEIGHT + 40,
        yaxis={"title": {"text": "ms"}, "rangemode": "tozero"},
    ))  # fmt: skip
    return fig


def latency_histogram_figure(
    series: SessionSeries, *, uirevision: str = "latency-hist"
) -> go.Figure:
    """Return how the latencies over the range are distributed: session, actions, plugins.

    Log-spaced bins shared by every trace (ms on a log axis); the plugins start hidden (the
    legend shows them).
    """
    title = _("Latency distribution over the range (count per bin, ms on a log axis)")
    counted = _summed_counts(series)
    if counted:
        return _bucket_histogram(counted, series.resolution, title, uirevision)
    named: list[tuple[str, list[float], bool]] = [
        (_("session"), [v for v in series.e2e_ms if v is not None and v > 0], True)
    ]
    named += [
        (_("action %(name)s") % {"name": n}, [v for v in vs if v], True)
        for n, vs in series.action_ms.items()
    ]
    named += [
        (_("plugin %(name)s") % {"name": n}, [v for v in vs if v], False)
        for n, vs in series.plugin_ms.items()
    ]
    named = [t for t in named if t[1]]
    if not named:
        return empty_figure(NO_SESSIONS, title=title, uirevision=uirevision)
    low = min(min(values) for _n, values, _s in named)
    high = max(max(values) for _n, values, _s in named)
    edges = np.geomspace(low, high * 1.0001, 31) if high > low else np.array([low * 0.9, low * 1.1])
    centers = [round(float(math.sqrt(a * b)), 4) for a, b in pairwise(edges.tolist())]
    traces: list[dict[str, Any]] = []
    for name, values, shown in named:
        counts, _edges = np.histogram(values, bins=edges)
        _scatter(traces,
            name=name, x=centers, y=counts.tolist(), mode="lines", line={"shape": "hvh"},
            fill="tozeroy", opacity=0.6, visible=True if shown else "legendonly",
            hovertemplate=f"%{{x:.2f}} ms: %{{y}}<extra>{name}</extra>",
        )  # fmt: skip
    what = (
        _("each count: one of the sessions")
        if series.resolution == 0
        else _("each count: one of the %(seconds)s s means") % {"seconds": series.resolution}
    )
    fig = _figure(traces)
    fig.update_layout(**_layout(
        title, uirevision, hovermode="closest", note=what,
        height=_HEIGHT + 40, xaxis={"type": "log"},
        yaxis={"title": {"text": _("count")}, "rangemode": "tozero"},
    ))  # fmt: skip
    return fig


def _summed_counts(series: SessionSeries) -> list[tuple[str, str, dict[str, int], bool]]:
    """Return ``(name, component, counts over the range, shown)`` when every point of a
    many-session series has histograms; else nothing."""
    hists = series.histograms
    if series.resolution == 0 or not hists or len(hists) != len(series.times) or None in hists:
        return []
    out: list[tuple[str, str, dict[str, int], bool]] = []
    session: dict[str, int] = {}
    per: dict[str, dict[str, dict[str, int]]] = {"actions": {}, "plugins": {}}
    for hist in hists:
        if hist is None:
            continue
        add_counts(session, hist["e2e"])
        for key, by_name in per.items():
            for name, counts in hist[key].items():
                add_counts(by_name.setdefault(name, {}), counts)
    out.append((_("session"), "e2e", session, True))
    out += [
        (_("action %(name)s") % {"name": n}, "actions", c, True) for n, c in per["actions"].items()
    ]
    out += [
        (_("plugin %(name)s") % {"name": n}, "plugins", c, False) for n, c in per["plugins"].items()
    ]
    return [t for t in out if sum(t[2].values())]


def _bucket_centre(component: str, bucket: int) -> float:
    """Return where a bucket sits on a log axis: the geometric middle of its bounds (the
    first bucket starts at 0 and +Inf has no end, so both get one more step of the series)."""
    bounds = BOUNDS[component]
    step = bounds[1] / bounds[0]
    low, high = bucket_range(component, bucket)
    if bucket >= len(bounds):
        low, high = bounds[-1], bounds[-1] * step
    elif bucket == 0:
        low = high / step
    return round(math.sqrt(low * high), 4)


def _bucket_histogram(
    counted: list[tuple[str, str, dict[str, int], bool]],
    resolution: int,
    title: str,
    uirevision: str,
) -> go.Figure:
    """Return the histogram drawn from recorded bucket counts (Volcano's buckets)."""
    traces: list[dict[str, Any]] = []
    for name, component, counts, shown in counted:
        buckets = range(len(BOUNDS[component]) + 1)
        x = [_bucket_centre(component, b) for b in buckets]
        y = [counts.get(str(b), 0) for b in buckets]
        labels = [f"≤ {bucket_range(component, b)[1]:.4g} ms" if b < len(BOUNDS[component])
                  else f"> {BOUNDS[component][-1]:.4g} ms" for b in buckets]  # fmt: skip
        _scatter(traces,
            name=name, x=x, y=y, customdata=labels, mode="lines", line={"shape": "hvh"},
            fill="tozeroy", opacity=0.6, visible=True if shown else "legendonly",
            hovertemplate=f"%{{customdata}}: %{{y}}<extra>{name}</extra>",
        )  # fmt: skip
    note = _(
        "each count: a session, in Volcano's latency buckets (%(seconds)s s roll-ups summed)"
    ) % {"seconds": resolution}
    fig = _figure(traces)
    fig.update_layout(**_layout(
        title, uirevision, hovermode="closest", note=note, height=_HEIGHT + 40,
        xaxis={"type": "log"}, yaxis={"title": {"text": _("count")}, "rangemode": "tozero"},
    ))  # fmt: skip
    return fig


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
        _scatter(traces,
            name=name, x=series.times, y=_scaled(fields.get(key, []), divisor), mode="lines",
            stackgroup=key, legendgroup=name, line={"width": 0.5},
            hovertemplate=f"%{{y}} {unit}<extra>{name}</extra>",
        )  # fmt: skip
    fig = _figure(traces)
    fig.update_layout(**_layout(
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
        _scatter(traces, name=name, x=series.times, y=fields.get("share", []), mode="lines",
                        hovertemplate=f"%{{y:.3f}}<extra>{name}</extra>")  # fmt: skip
    fig = _figure(traces)
    fig.add_hline(y=1.0, line={"dash": "dot", "width": 1}, opacity=0.6)
    fig.update_layout(**_layout(
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
            _scatter(traces, name=label, x=series.times, y=fields.get(key, []), mode="lines",
                            legendgroup=name, line={"dash": dash, "color": color},
                            hovertemplate=f"%{{y:.0f}} pods<extra>{label}</extra>")  # fmt: skip
    fig = _figure(traces)
    fig.update_layout(**_layout(
        title, uirevision, yaxis={"title": {"text": _("pods")}, "rangemode": "tozero"},
        note=note or "UTC",
    ))  # fmt: skip
    return fig


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
        _scatter(
            traces,
            name=_("%(queue)s mean") % {"queue": name},
            x=times,
            y=values["mean"],
            mode="lines",
            legendgroup=name,
            hovertemplate=f"%{{y:.4f}}<extra>{name} mean</extra>",
        )
        _scatter(traces, name=_("%(queue)s max") % {"queue": name}, x=times, y=values["max"], mode="lines",
                        legendgroup=name, line={"dash": "dot"}, visible="legendonly",
                        hovertemplate=f"%{{y:.4f}}<extra>{name} max</extra>")  # fmt: skip
    fig = _figure(traces)
    fig.update_layout(**_layout(
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
        _scatter(traces, name=label, x=times, y=job["share"], mode="lines+markers",
                        marker={"size": 5}, connectgaps=False,
                        hovertemplate=f"%{{y:.4f}}<extra>{uid}{dominant}</extra>")  # fmt: skip
    fig = _figure(traces)
    fig.update_layout(
        **_layout(
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
        _bar(traces,
            name=_("dominant: %(resource)s") % {"resource": dominant} if dominant else _("share"), x=[r[2] for r in rows], y=[r[0] for r in rows],
            orientation="h", customdata=[[r[1], top.index(r) + 1] for r in rows],
            hovertemplate="%{y}: %{x:.4f} (queue %{customdata[0]}, served #%{customdata[1]})"
                          f"<extra>{dominant}</extra>",
        )  # fmt: skip
    fig = _figure(traces)
    fig.update_layout(**base_layout(
        title=title, uirevision=uirevision, height=max(_HEIGHT, 18 * len(top) + 80),
        xaxis={"title": {"text": _("dominant share")}, "rangemode": "tozero"},
        yaxis={"categoryorder": "array", "categoryarray": [r[0] for r in reversed(top)],
               "tickvals": [r[0] for r in top], "ticktext": [_short(r[0]) for r in top],
               "automargin": True},
    ))  # fmt: skip
    return fig


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
        _bar(traces, name=name, x=series.times, y=values,
                    hovertemplate=f"%{{y}} evicted<extra>{name}</extra>")  # fmt: skip
    fig = _figure(traces)
    fig.update_layout(
        **_layout(title, uirevision, barmode="stack", yaxis={"title": {"text": _("pods evicted")}})
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
        _scatter(traces, name=label, x=series.times, y=series.counts.get(key, []), mode="lines",
                        hovertemplate=f"%{{y}} {label}<extra>{waiting}</extra>")  # fmt: skip
    fig = _figure(traces)
    fig.update_layout(
        **_layout(title, uirevision, yaxis={"title": {"text": _("count")}, "rangemode": "tozero"})
    )
    return fig
