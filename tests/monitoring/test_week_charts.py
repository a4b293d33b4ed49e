"""A week's charts draw the same points, however the rows are decoded and stacked.

The reference below is the read the week's charts had before rows were stacked run by run and
kept decoded per process: every row spread over every queue seen, one Python loop per queue.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from console.charts import figure_data
from monitoring import charts, row_cache
from monitoring.codec import decode_blocks, decode_drf_block
from monitoring.history import QUEUE_FIELDS, QueueSeries, job_share_series, queue_series
from monitoring.merge import merge_samples
from monitoring.models import HistorySample
from tests.monitoring.helpers import sample, store

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 1, 8, 12, 0, tzinfo=UTC)
WEEK = timedelta(days=7)
LAYOUTS = ({"a": 0.25, "b": 0.5}, {"a": 0.5, "b": 0.25, "c": 0.75}, {"b": 0.125, "c": 1.0})


def _week() -> None:
    """Store a week per ten minutes in three layouts: c joins after a day, a leaves after
    five; the top jobs and their queues change along."""
    for step in range(7 * 144):
        at = NOW - WEEK + timedelta(minutes=10 * step)
        queues = LAYOUTS[0 if step < 144 else 1 if step < 5 * 144 else 2]
        shares = {name: share * (1 + step % 7) / 7 for name, share in queues.items()}
        names = sorted(shares)
        top = [[f"ns/job-{(step + k) % 23}", names[k % len(names)], round(0.9 - k / 10, 3), "cpu"]
               for k in range(3)]  # fmt: skip
        data = sample(queues=shares, pods=(step % 5, step % 3), top=top)
        data["drf"]["queues"] = {n: [1 + step % 4, shares[n] / 2, shares[n]] for n in names}
        store(at, merge_samples([(1, data)]), resolution=600)


def _old_queue_columns(resource: str) -> dict[str, dict[str, list[Any]]]:
    """Return the queue series as the old read spread them: a row at a time."""
    order: dict[str, int] = {}
    per_field: dict[str, list[list[Any]]] = {f: [] for f in QUEUE_FIELDS}
    for row in HistorySample.objects.filter(resolution=600).order_by("at"):
        columns = decode_blocks(row.data).queues()
        names = columns["name"]
        for name in names:
            order.setdefault(name, len(order))
        blocks = decode_blocks(row.data)
        column = blocks.resources.index(resource) if resource in blocks.resources else None
        for key in QUEUE_FIELDS:
            if key in ("allocated", "deserved", "guarantee", "capability"):
                values = [r[column] if column is not None else 0 for r in columns[key]]
            elif key in ("pods_pending", "pods_running"):
                values = columns.get(key) or [0] * len(names)
            else:
                values = columns.get(key) or columns["share"]
            spread: list[Any] = [None] * len(order)
            for name, value in zip(names, values, strict=True):
                spread[order[name]] = value
            per_field[key].append(spread)
    out: dict[str, dict[str, list[Any]]] = {name: {} for name in order}
    for key, per_step in per_field.items():
        padded = [v + [None] * (len(order) - len(v)) for v in per_step]
        for name, series in zip(order, zip(*padded, strict=True), strict=True):
            out[name][key] = list(series)
    return out


def _old_drf_queues() -> dict[str, dict[str, list[Any]]]:
    rows = list(HistorySample.objects.filter(resolution=600).order_by("at"))
    out: dict[str, dict[str, list[Any]]] = {}
    for step, row in enumerate(rows):
        block = decode_drf_block(row.data)
        for name, (jobs, mean, most) in zip(block.names, block.stats.tolist(), strict=True):
            series = out.setdefault(name, {k: [None] * step for k in ("jobs", "mean", "max")})
            for key, value in (("jobs", jobs), ("mean", mean), ("max", most)):
                series[key].extend([None] * (step - len(series[key])))
                series[key].append(value)
    for series in out.values():
        for values in series.values():
            values.extend([None] * (len(rows) - len(values)))
    return out


@pytest.mark.parametrize("resource", ["cpu", "memory", "nvidia.com/gpu"])
def test_a_weeks_queue_chart_draws_the_points_the_row_by_row_read_gave(resource: str) -> None:
    _week()
    row_cache.clear()

    cold = queue_series(resource, NOW - WEEK, NOW, now=NOW)
    warm = queue_series(resource, NOW - WEEK, NOW, now=NOW)  # every row decoded already

    assert cold.resolution == 600
    assert list(cold.queues) == ["a", "b", "c"]
    assert cold.queues == warm.queues == _old_queue_columns(resource)
    old = QueueSeries(resource, 600, cold.times, _old_queue_columns(resource))
    for key in ("allocated", "deserved"):
        assert figure_data(charts.queue_stack_figure(warm, key=key)) == figure_data(
            charts.queue_stack_figure(old, key=key)
        )
    assert figure_data(charts.queue_pods_figure(warm)) == figure_data(charts.queue_pods_figure(old))


def test_a_weeks_drf_charts_draw_the_points_the_row_by_row_read_gave() -> None:
    _week()
    row_cache.clear()

    cold = job_share_series(NOW - WEEK, NOW, now=NOW)
    warm = job_share_series(NOW - WEEK, NOW, now=NOW)

    assert cold == warm
    assert cold["queues"] == _old_drf_queues()
    assert cold["queues"]["a"]["mean"][-1] is None  # a left the cluster after five days
    old = {**cold, "queues": _old_drf_queues()}
    assert figure_data(charts.drf_queue_figure(warm)) == figure_data(charts.drf_queue_figure(old))
