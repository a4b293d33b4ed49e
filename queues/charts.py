"""Charts of queue shares: per resource, every queue's allocated, deserved, guarantee, capability.

Pure functions of the rows (no query): bars for what a queue holds and deserves, markers for
its guarantee (the floor) and its capability (the ceiling), in the resource's own unit; and a
queue's allocated against its deserved share over time, which the monitoring app draws from
its recorded history on the queue's page (``monitoring.queue_history``).
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go
from django.utils.translation import gettext as _

from console.charts import base_layout
from console.units import axis_unit
from queues.selectors import QueueRow

__all__ = ["has_figures", "queue_share_figure", "queue_share_history_figure"]


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
    fig.add_bar(
        name=_("allocated"), x=names, y=allocated, hovertemplate=hover, marker_color="#3b82f6"
    )
    fig.add_bar(
        name=_("deserved"), x=names, y=deserved, hovertemplate=hover, marker_color="#a3b8d9"
    )
    fig.add_scatter(
        name=_("guarantee"), x=names, y=guarantee, mode="markers", hovertemplate=hover,
        marker={"symbol": "line-ew-open", "size": 22, "line": {"width": 3}, "color": "#16a34a"},
    )  # fmt: skip
    fig.add_scatter(
        name=_("capability"), x=names, y=capability, mode="markers", hovertemplate=hover,
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


def queue_share_history_figure(
    resource: str,
    times: Sequence[str],
    allocated: Sequence[float | None],
    deserved: Sequence[float | None],
) -> go.Figure:
    """Return one queue's ``resource`` over time: allocated (filled) against deserved (line).

    ``times`` are ISO instants; amounts are milli-units as recorded (``None``: the queue was
    not there), shown in the resource's unit. Where allocated rises above deserved the queue
    is overused: other queues may reclaim the difference.
    """
    unit, divisor = axis_unit(resource)

    def scaled(values: Sequence[float | None]) -> list[float | None]:
        return [None if v is None else round(v / divisor, 3) for v in values]

    hover = f"%{{x}}<br>%{{y}} {unit}<extra>%{{fullData.name}}</extra>"
    # Built from our own numbers: plotly.py's per-property checks would check nothing new on
    # every live refresh of the queue's page.
    fig = go.Figure(
        layout=go.Layout(
            base_layout(
                title=f"{resource} ({unit})",
                uirevision=f"queue-history-{resource}",
                xaxis={"type": "date"},
                yaxis={"title": {"text": unit}, "rangemode": "tozero"},
                height=260,
            ),
            _validate=False,
        )
    )
    fig.add_trace(go.Scatter(
        name=_("allocated"), x=list(times), y=scaled(allocated), mode="lines", fill="tozeroy",
        line={"color": "#3b82f6", "width": 2, "shape": "hv"}, hovertemplate=hover,
        _validate=False,
    ))  # fmt: skip
    fig.add_trace(go.Scatter(
        name=_("deserved"), x=list(times), y=scaled(deserved), mode="lines",
        line={"color": "#f59e0b", "width": 2, "dash": "dash", "shape": "hv"}, hovertemplate=hover,
        _validate=False,
    ))  # fmt: skip
    return fig
