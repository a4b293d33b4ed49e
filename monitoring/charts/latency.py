"""The latency charts: session, action and plugin latencies as quantiles over time, and
their distribution over the range.

A point of the quantile chart is a window of recorded points (``windows``); where the history
kept Volcano's latency buckets, quantiles come from the summed buckets, else from the values.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

import numpy as np
import plotly.graph_objects as go
from django.utils.translation import gettext as _

from monitoring.charts.figures import (
    HEIGHT,
    NO_SESSIONS,
    PALETTE,
    empty_figure,
    figure,
    layout,
    scatter,
)
from monitoring.history import SessionSeries
from monitoring.latency import BOUNDS, add_counts, bucket_range, quantile

__all__ = ["latency_histogram_figure", "latency_quantile_figure", "windows"]

QUANTILES = (("p50", 50, "dot"), ("p95", 95, "solid"), ("p99", 99, "dash"))
SHOWN_COMPONENTS = 5  # plugins drawn at first (the slowest); the others wait in the legend
WINDOW_POINTS = 60  # quantiles over time: about this many points, whatever the range


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
            scatter(traces,
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
        scatter(traces, name=_("slowest"), x=x, y=peaks, mode="lines", line={"width": 1},
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
    fig = figure(traces)
    fig.update_layout(**layout(
        title, uirevision, note=note, height=HEIGHT + 40,
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
        scatter(traces,
            name=name, x=centers, y=counts.tolist(), mode="lines", line={"shape": "hvh"},
            fill="tozeroy", opacity=0.6, visible=True if shown else "legendonly",
            hovertemplate=f"%{{x:.2f}} ms: %{{y}}<extra>{name}</extra>",
        )  # fmt: skip
    what = (
        _("each count: one of the sessions")
        if series.resolution == 0
        else _("each count: one of the %(seconds)s s means") % {"seconds": series.resolution}
    )
    fig = figure(traces)
    fig.update_layout(**layout(
        title, uirevision, hovermode="closest", note=what,
        height=HEIGHT + 40, xaxis={"type": "log"},
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
        scatter(traces,
            name=name, x=x, y=y, customdata=labels, mode="lines", line={"shape": "hvh"},
            fill="tozeroy", opacity=0.6, visible=True if shown else "legendonly",
            hovertemplate=f"%{{customdata}}: %{{y}}<extra>{name}</extra>",
        )  # fmt: skip
    note = _(
        "each count: a session, in Volcano's latency buckets (%(seconds)s s roll-ups summed)"
    ) % {"seconds": resolution}
    fig = figure(traces)
    fig.update_layout(**layout(
        title, uirevision, hovermode="closest", note=note, height=HEIGHT + 40,
        xaxis={"type": "log"}, yaxis={"title": {"text": _("count")}, "rangemode": "tozero"},
    ))  # fmt: skip
    return fig
