"""Charts of queue shares: per resource, every queue's allocated, deserved, guarantee, capability.

Pure functions of the rows (no query): bars for what a queue holds and deserves, markers for
its guarantee (the floor) and its capability (the ceiling), in the resource's own unit.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from queues.selectors import QueueRow
from volcano_site.console.charts import base_layout
from volcano_site.console.units import axis_unit

__all__ = ["has_figures", "queue_share_figure"]


def has_figures(resource: str, rows: Sequence[QueueRow]) -> bool:
    """Return whether any queue holds, deserves or bounds ``resource`` (else: no chart)."""
    for row in rows:
        q = row.queue
        if any((values or {}).get(resource) for values in (q.allocated, q.guarantee, q.capability)):
            return True
        if row.share.taking_part and row.share.deserved.get(resource):
            return True
    return False


def queue_share_figure(resource: str, rows: Sequence[QueueRow]) -> go.Figure:
    """Return the share chart of ``resource`` for ``rows`` (queues on x, amounts on y)."""
    unit, divisor = axis_unit(resource)
    names = [row.queue.name for row in rows]

    def series(values: list[float | None]) -> list[float | None]:
        return [None if v is None else round(v / divisor, 3) for v in values]

    allocated = series([float((r.queue.allocated or {}).get(resource, 0)) for r in rows])
    deserved = series([
        (r.share.deserved.get(resource, 0.0) if r.share.taking_part else None)
        for r in rows
    ])  # fmt: skip
    guarantee = series([
        float(v) if (v := (r.queue.guarantee or {}).get(resource)) is not None else None
        for r in rows
    ])  # fmt: skip
    capability = series([
        float(v) if (v := (r.queue.capability or {}).get(resource)) is not None else None
        for r in rows
    ])  # fmt: skip
    hover = f"%{{x}}: %{{y}} {unit}<extra>%{{fullData.name}}</extra>"
    fig = go.Figure()
    fig.add_bar(name="allocated", x=names, y=allocated, hovertemplate=hover, marker_color="#3b82f6")
    fig.add_bar(name="deserved", x=names, y=deserved, hovertemplate=hover, marker_color="#a3b8d9")
    fig.add_scatter(
        name="guarantee", x=names, y=guarantee, mode="markers", hovertemplate=hover,
        marker={"symbol": "line-ew-open", "size": 22, "line": {"width": 3}, "color": "#16a34a"},
    )  # fmt: skip
    fig.add_scatter(
        name="capability", x=names, y=capability, mode="markers", hovertemplate=hover,
        marker={"symbol": "line-ew-open", "size": 22, "line": {"width": 3}, "color": "#dc2626"},
    )  # fmt: skip
    fig.update_layout(
        **base_layout(
            title=f"{resource} ({unit})",
            barmode="group",
            uirevision=f"queues-{resource}",
            yaxis={"title": {"text": unit}, "rangemode": "tozero"},
            height=300,
        )
    )
    return fig
