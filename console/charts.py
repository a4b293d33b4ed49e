"""Chart helpers shared by every app: a figure as JSON for the page, and a neutral layout.

Charts are built by pure functions (series → ``plotly.graph_objects.Figure``) in each app's
``charts.py``; the page embeds ``figure_data(fig)`` with ``json_script`` and
``static/console/charts.js`` draws it with the installed plotly.min.js, recolouring for the
theme and keeping the user's zoom across live refreshes (``uirevision``).

Export: ``figure_csv`` turns any figure's traces into CSV (one row per point: the trace's
name, x, y); ``charts.js`` adds a modebar button that writes the same CSV in the browser, so
every chart of the console downloads its data, and Plotly's own button saves it as PNG.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from typing import Any

from plotly.basedatatypes import BaseFigure

__all__ = ["CSV_COLUMNS", "base_layout", "figure_csv", "figure_data"]

CSV_COLUMNS = ("series", "x", "y")


def base_layout(*, title: str = "", uirevision: str = "keep", **extra: Any) -> dict[str, Any]:
    """Return the console's layout for a figure: transparent, compact, legend below."""
    layout: dict[str, Any] = {
        "title": {"text": title, "x": 0, "font": {"size": 14}} if title else None,
        "margin": {"l": 48, "r": 16, "t": 32 if title else 12, "b": 40},
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "legend": {"orientation": "h", "y": -0.2},
        "uirevision": uirevision,
        "autosize": True,
    }
    layout.update(extra)
    return {k: v for k, v in layout.items() if v is not None}


def figure_data(fig: BaseFigure) -> dict[str, Any]:
    """Return ``fig`` as the data ``Plotly.react`` takes (``{"data": …, "layout": …}``).

    A dict, not JSON text: the template's ``json_script`` encodes it (once). plotly.py's
    default template (about 8 KB of styling per figure) is dropped: Plotly.js draws with its
    own defaults and ``charts.js`` sets the theme's colours, so it would only weigh on every
    page and every live refresh.
    """
    data: dict[str, Any] = json.loads(fig.to_json())
    data.get("layout", {}).pop("template", None)
    return data


def figure_csv(fig: BaseFigure | Mapping[str, Any]) -> str:
    """Return the data of ``fig``'s traces as CSV: ``series,x,y``, one row per point.

    Long form, so traces of different lengths (or a bar chart next to a line) fit one table;
    a trace without x numbers its points from 0, and a missing value is an empty cell. The
    browser's "Download data as CSV" button (``static/console/charts.js``) writes the same.
    """
    data = figure_data(fig) if isinstance(fig, BaseFigure) else dict(fig)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for index, trace in enumerate(data.get("data", [])):
        name = trace.get("name") or f"trace {index}"
        ys = _values(trace.get("y"))
        xs = _values(trace.get("x"))
        if not xs:
            xs = list(range(len(ys)))
        if not ys:
            ys = [None] * len(xs)
        for x, y in zip(xs, ys, strict=False):
            writer.writerow((name, _cell(x), _cell(y)))
    return out.getvalue()


def _values(values: Any) -> list[Any]:
    if values is None:
        return []
    if isinstance(values, Mapping):  # plotly 6's typed arrays (NumPy input): dtype + base64
        import base64

        import numpy as np

        raw = base64.b64decode(values.get("bdata", ""))
        return np.frombuffer(raw, dtype=np.dtype(values.get("dtype", "f8"))).tolist()
    return list(values)


def _cell(value: Any) -> str:
    return "" if value is None else str(value)
