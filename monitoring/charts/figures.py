"""The Metrics charts' figure kit: building a figure fast, its traces and its layout.

Every chart module draws with these: ``figure`` skips plotly.py's per-value validation and
deep copies (the values are built for one figure and never change), ``scatter``/``bar`` add a
trace, ``layout`` titles it with a note under the title, ``empty_figure`` says why nothing is
drawn.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy

from console.charts import base_layout

__all__ = ["HEIGHT", "NO_SESSIONS", "PALETTE", "bar", "empty_figure", "figure", "layout", "scatter"]

NO_SESSIONS = gettext_lazy("No sessions recorded in this range yet")
# Plotly's own first colours, fixed so a name's three quantile lines share one
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")  # fmt: skip
HEIGHT = 320


class ChartFigure(go.Figure):
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


def figure(traces: list[dict[str, Any]]) -> go.Figure:
    """Return a figure of ``traces`` that skips plotly.py's per-value validation.

    A day per minute is 1,440 points per trace; validating every value cost about five times
    building the figure (``bench/metrics_pages.py``), and these figures are built from typed
    series by the chart modules, which the tests check.
    """
    return ChartFigure(data=traces, _validate=False)


class SharedValues(list[Any]):
    """A trace's values that plotly.py does not deep-copy: the figure constructor copies every
    trace (``deepcopy``), one call per value, a quarter of a week's chart; these lists are
    built for the one figure and nothing changes them after."""

    def __deepcopy__(self, memo: dict[int, Any]) -> SharedValues:
        return self


def shared(trace: dict[str, Any]) -> dict[str, Any]:
    for key in ("x", "y", "customdata"):
        if isinstance(trace.get(key), list):
            trace[key] = SharedValues(trace[key])
    return trace


# A line of fewer points than this also gets its points marked: a range holding one or two
# (a new cluster's first buckets, a week's range on a day-old history) would draw no line at all.
FEW_POINTS = 3


def scatter(traces: list[dict[str, Any]], **trace: Any) -> None:
    if trace.get("mode") == "lines" and len(trace.get("x") or ()) < FEW_POINTS:
        trace["mode"] = "lines+markers"
    traces.append(shared({"type": "scatter", **trace}))


def bar(traces: list[dict[str, Any]], **trace: Any) -> None:
    traces.append(shared({"type": "bar", **trace}))


def layout(title: str, uirevision: str, *, note: str = "", **extra: Any) -> dict[str, Any]:
    """Return the layout: ``title`` with ``note`` under it (what a point is, which queues)."""
    extra.setdefault("hovermode", "x unified")
    extra.setdefault("height", HEIGHT)
    out = base_layout(title=title, uirevision=uirevision, **extra)
    if note:
        out["title"]["subtitle"] = {"text": note, "font": {"size": 11}}
        out["margin"] = {**out["margin"], "t": 54}
    return out


def empty_figure(
    message: str | Promise, *, title: str = "", uirevision: str = "empty"
) -> go.Figure:
    """Return a figure that says ``message`` where the chart would be."""
    fig = figure([])
    fig.update_layout(
        **base_layout(title=title, uirevision=uirevision, height=HEIGHT),
        xaxis={"visible": False}, yaxis={"visible": False},
        annotations=[{"text": str(message), "showarrow": False, "xref": "paper", "yref": "paper",
                      "x": 0.5, "y": 0.5, "font": {"size": 14}}],
    )  # fmt: skip
    return fig
