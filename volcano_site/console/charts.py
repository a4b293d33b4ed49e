"""Chart helpers shared by every app: a figure as JSON for the page, and a neutral layout.

Charts are built by pure functions (series → ``plotly.graph_objects.Figure``) in each app's
``charts.py``; the page embeds ``figure_data(fig)`` with ``json_script`` and
``static/console/charts.js`` draws it with the installed plotly.min.js, recolouring for the
theme and keeping the user's zoom across live refreshes (``uirevision``).
"""

from __future__ import annotations

import json
from typing import Any

from plotly.basedatatypes import BaseFigure

__all__ = ["base_layout", "figure_data"]


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
