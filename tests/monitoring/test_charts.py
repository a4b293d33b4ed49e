"""The Metrics charts drawn from series made by hand (pure: no database)."""

from __future__ import annotations

import csv
import io

import pytest

from console.charts import figure_csv
from monitoring import charts
from monitoring.history import QueueSeries, SessionSeries

TIMES = [f"2026-01-08T00:{m:02d}:{s:02d}+00:00" for m in range(2) for s in range(60)]


def _sessions(count: int = 120) -> SessionSeries:
    times = TIMES[:count]
    return SessionSeries(
        resolution=0,
        times=times,
        sessions=[1] * count,
        e2e_ms=[float(i + 1) for i in range(count)],  # 1 .. count ms
        e2e_max_ms=[float(i + 1) for i in range(count)],
        action_ms={"allocate": [0.5] * count, "preempt": [None] * (count - 1) + [3.0]},
        plugin_ms={"drf": [0.1] * count},
        counts={"unschedulable_jobs": [1] * count, "unschedulable_tasks": [4] * count},
        evictions_by_action={"preempt": [0] * (count - 1) + [2], "reclaim": [0] * count},
        evictions_by_queue={"q1": [0] * (count - 1) + [2]},
    )


def _annotation(fig: object) -> str:
    return str(fig.layout.annotations[0].text)  # type: ignore[attr-defined]


def test_session_latency_shows_p50_p95_p99_per_window_of_sessions() -> None:
    fig = charts.latency_quantile_figure(_sessions(), component="e2e")

    by_name = {t.name: t for t in fig.data}
    assert set(by_name) == {"session p50", "session p95", "session p99", "slowest"}
    # 120 sessions in windows of 2: the first window holds 1 ms and 2 ms
    assert len(by_name["session p50"].x) == 60
    assert by_name["session p50"].y[0] == pytest.approx(1.5)
    assert by_name["session p99"].y[-1] == pytest.approx(119.99)
    assert by_name["slowest"].y[-1] == 120.0
    assert fig.layout.yaxis.title.text == "ms"


def test_a_range_of_one_point_marks_it_since_a_line_of_one_point_draws_nothing() -> None:
    one = charts.latency_quantile_figure(_sessions(1), component="e2e")
    many = charts.latency_quantile_figure(_sessions(), component="e2e")

    assert {t.mode for t in one.data} == {"lines+markers"}
    assert {t.mode for t in many.data} == {"lines"}


def test_action_latency_has_one_legend_entry_per_action_for_its_three_lines() -> None:
    fig = charts.latency_quantile_figure(_sessions(), component="actions")

    allocate = [t for t in fig.data if t.legendgroup == "allocate"]
    assert [t.name for t in allocate] == ["allocate p50", "allocate p95", "allocate p99"]
    assert [t.showlegend for t in allocate] == [False, True, False]
    assert len({t.line["color"] for t in allocate}) == 1
    preempt = next(t for t in fig.data if t.name == "preempt p95")
    assert preempt.y[-1] == 3.0  # the one window where preempt ran
    assert preempt.y[0] is None


def test_only_the_slowest_plugins_are_drawn_at_first() -> None:
    series = _sessions()
    series.plugin_ms = {f"p{i}": [float(i)] * 120 for i in range(8)}

    fig = charts.latency_quantile_figure(series, component="plugins")

    drawn = {t.legendgroup for t in fig.data if t.visible is True}
    assert drawn == {"p3", "p4", "p5", "p6", "p7"}
    assert "the 5 slowest shown" in fig.layout.title.subtitle.text


def test_latency_histogram_counts_every_session_once() -> None:
    fig = charts.latency_histogram_figure(_sessions())

    session = next(t for t in fig.data if t.name == "session")
    assert sum(session.y) == 120
    assert fig.layout.xaxis.type == "log"
    assert next(t for t in fig.data if t.name == "plugin drf").visible == "legendonly"


def test_no_sessions_in_range_says_so() -> None:
    empty = SessionSeries(resolution=0)
    for fig in (
        charts.latency_quantile_figure(empty, component="e2e"),
        charts.latency_histogram_figure(empty),
        charts.evictions_figure(empty, by="action"),
        charts.unschedulable_figure(empty),
        charts.queue_stack_figure(QueueSeries(resource="cpu", resolution=0), key="allocated"),
        charts.drf_now_figure({"times": [], "queues": {}, "top": [], "jobs": {}}),
    ):
        assert not fig.data
        assert _annotation(fig) == str(charts.NO_SESSIONS)


def _queues() -> QueueSeries:
    return QueueSeries(
        resource="memory",
        resolution=60,
        times=TIMES[:2],
        queues={
            "a": {"allocated": [2**30 * 1000, 2 * 2**30 * 1000], "deserved": [4 * 2**30 * 1000] * 2,
                  "share": [0.25, 0.5], "pods_pending": [3, 0], "pods_running": [1, 4]},
            "b": {"allocated": [None, 2**30 * 1000], "deserved": [None, 2**30 * 1000],
                  "share": [None, 1.0], "pods_pending": [None, 2], "pods_running": [None, 1]},
        },
    )  # fmt: skip


def test_queue_allocation_is_stacked_per_queue_in_gib() -> None:
    fig = charts.queue_stack_figure(_queues(), key="allocated")

    assert [t.name for t in fig.data] == ["a", "b"]
    assert {t.stackgroup for t in fig.data} == {"allocated"}
    assert list(fig.data[0].y) == [1.0, 2.0]
    assert list(fig.data[1].y) == [None, 1.0]  # b did not exist yet: a gap
    assert fig.layout.yaxis.title.text == "GiB"


def test_queue_share_lines_mark_the_fair_share() -> None:
    fig = charts.queue_share_figure(_queues())

    assert list(fig.data[0].y) == [0.25, 0.5]
    assert fig.layout.shapes[0].y0 == 1.0


def test_pods_per_queue_show_running_and_pending() -> None:
    fig = charts.queue_pods_figure(_queues())

    by_name = {t.name: list(t.y) for t in fig.data}
    assert by_name["a running"] == [1, 4]
    assert by_name["a pending"] == [3, 0]
    assert by_name["b pending"] == [None, 2]


SHARES = {
    "times": TIMES[:3],
    "queues": {"q1": {"jobs": [1, 2, 2], "mean": [0.1, 0.2, 0.3], "max": [0.1, 0.3, 0.4]},
               "q2": {"jobs": [1, 1, 1], "mean": [0.5, 0.5, 0.5], "max": [0.5, 0.5, 0.5]}},
    "top": [["ns/big", "q2", 0.5, "memory"], ["ns/mid", "q1", 0.4, "cpu"],
            ["ns/small", "q1", 0.2, "cpu"]],
    "jobs": {"ns/big": {"queue": "q2", "dominant": "memory", "share": [0.5, 0.5, 0.5]},
             "ns/mid": {"queue": "q1", "dominant": "cpu", "share": [None, 0.3, 0.4]},
             "ns/small": {"queue": "q1", "dominant": "cpu", "share": [0.1, None, 0.2]}},
}  # fmt: skip


def test_drf_now_orders_jobs_as_drf_serves_them_lowest_share_first() -> None:
    fig = charts.drf_now_figure(SHARES)

    order = list(fig.layout.yaxis.categoryarray)
    assert order[-1] == "ns/small"  # the top of a horizontal bar chart: served first
    assert order == ["ns/big", "ns/mid", "ns/small"]
    assert {t.name for t in fig.data} == {"dominant: cpu", "dominant: memory"}
    cpu = next(t for t in fig.data if t.name == "dominant: cpu")
    assert [c[1] for c in cpu.customdata] == [1, 2]  # served #1 and #2


def test_drf_jobs_name_the_dominant_resource_and_keep_gaps() -> None:
    fig = charts.drf_jobs_figure(SHARES, top=2)

    assert [t.name for t in fig.data] == [
        "ns/big (q2, dominant: memory)",
        "ns/mid (q1, dominant: cpu)",
    ]
    assert list(fig.data[1].y) == [None, 0.3, 0.4]
    assert "top N" in fig.layout.title.text


def test_drf_charts_follow_the_queue_filter() -> None:
    assert {t.name for t in charts.drf_queue_figure(SHARES, queues=["q1"]).data} == {
        "q1 mean",
        "q1 max",
    }
    assert [t.name for t in charts.drf_jobs_figure(SHARES, queues=["q2"]).data] == [
        "ns/big (q2, dominant: memory)"
    ]


def test_evictions_by_action_and_by_queue_are_stacked_bars() -> None:
    by_action = charts.evictions_figure(_sessions(), by="action")
    by_queue = charts.evictions_figure(_sessions(), by="queue")

    assert [t.name for t in by_action.data] == ["preempt"]  # reclaim evicted nothing
    assert by_action.layout.barmode == "stack"
    assert [t.name for t in by_queue.data] == ["q1"]
    assert list(by_queue.data[0].y)[-1] == 2
    assert _annotation(charts.evictions_figure(_sessions(), by="queue", queues=["q9"])) == (
        "No evictions in this range"
    )


def test_unschedulable_jobs_and_tasks_over_time() -> None:
    fig = charts.unschedulable_figure(_sessions(3))

    assert {t.name: list(t.y) for t in fig.data} == {"jobs": [1, 1, 1], "tasks": [4, 4, 4]}


def test_a_figure_downloads_as_csv_one_row_per_point() -> None:
    fig = charts.queue_pods_figure(_queues())

    rows = list(csv.reader(io.StringIO(figure_csv(fig))))

    assert rows[0] == ["series", "x", "y"]
    assert rows[1] == ["a running", TIMES[0], "1"]
    assert ["b running", TIMES[0], ""] in rows  # a gap is an empty cell
    assert len(rows) == 1 + 4 * 2


def test_any_console_figure_downloads_as_csv_also_from_numpy_arrays() -> None:
    import numpy as np
    import plotly.graph_objects as go

    fig = go.Figure()
    fig.add_bar(name="allocated", x=["q1", "q2"], y=np.array([1.5, 2.0]))  # typed array in JSON
    fig.add_scatter(y=[3, None])  # no name, no x

    rows = list(csv.reader(io.StringIO(figure_csv(fig))))

    assert rows[1:] == [["allocated", "q1", "1.5"], ["allocated", "q2", "2.0"],
                        ["trace 1", "0", "3"], ["trace 1", "1", ""]]  # fmt: skip
