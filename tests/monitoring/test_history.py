"""Reading recorded history as chart series: per queue, per session, DRF shares."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from monitoring.history import choose_resolution, job_share_series, queue_series, session_series
from monitoring.merge import merge_samples
from tests.monitoring.helpers import sample, store

pytestmark = pytest.mark.django_db
NOW = datetime(2026, 1, 8, tzinfo=UTC)


@pytest.mark.parametrize(
    ("span", "expected"),
    [(timedelta(minutes=10), 0), (timedelta(hours=6), 60), (timedelta(days=3), 600)],
)
def test_the_range_chooses_the_resolution(span: timedelta, expected: int) -> None:
    assert choose_resolution(NOW - span, NOW, now=NOW) == expected


def test_queue_series_has_a_gap_before_a_queue_existed() -> None:
    store(NOW - timedelta(seconds=2), sample(queues={"a": 0.25}))
    store(NOW - timedelta(seconds=1), sample(queues={"a": 0.5, "b": 0.75}))

    series = queue_series("cpu", NOW - timedelta(minutes=1), NOW, now=NOW)

    assert series.resolution == 0
    assert len(series.times) == 2
    assert series.queues["a"]["allocated"] == [250, 500]
    assert series.queues["b"]["allocated"] == [None, 750]
    assert series.queues["b"]["share"] == [None, 0.75]
    assert series.queues["a"]["capability"] == [8000, 8000]


def test_queue_series_of_the_same_queues_gives_each_field_in_order() -> None:
    for i, share in enumerate([0.25, 0.5, 0.75]):
        store(NOW - timedelta(seconds=3 - i), sample(queues={"a": share, "b": 0.1}, weight=2))

    series = queue_series("cpu", NOW - timedelta(minutes=1), NOW, now=NOW)

    assert series.queues["a"]["allocated"] == [250, 500, 750]
    assert series.queues["a"]["share_max"] == [0.25, 0.5, 0.75]  # a session's own: its share
    assert series.queues["b"]["weight"] == [2, 2, 2]
    assert series.queues["b"]["deserved"] == [4000, 4000, 4000]
    assert queue_series("gpu", NOW - timedelta(minutes=1), NOW, now=NOW).queues["a"][
        "allocated"
    ] == [0, 0, 0]  # a resource the cluster does not have


def test_session_series_gives_latency_and_evictions_by_action() -> None:
    store(NOW - timedelta(seconds=2), sample(queues={"a": 0.1}, preempt=2, e2e=40.0))
    store(NOW - timedelta(seconds=1), sample(queues={"a": 0.1}, binds=3, e2e=20.0))

    series = session_series(NOW - timedelta(minutes=1), NOW, now=NOW)

    assert series.e2e_ms == [40.0, 20.0]
    assert series.action_ms["allocate"] == [20.0, 10.0]
    assert series.evictions_by_action["preempt"] == [2, 0]
    assert series.counts["binds"] == [0, 3]
    assert series.sessions == [1, 1]


def test_job_shares_give_per_queue_figures_and_the_last_top_jobs() -> None:
    store(NOW - timedelta(seconds=1), sample(queues={"a": 0.1}))

    shares = job_share_series(NOW - timedelta(minutes=1), NOW, now=NOW)

    assert shares["queues"]["a"] == {"jobs": [1], "mean": [0.5], "max": [0.5]}
    assert shares["top"] == [["default/j", "a", 0.5, "cpu"]]


def test_pods_per_queue_and_evictions_per_queue_are_read_back() -> None:
    store(NOW - timedelta(seconds=2), sample(queues={"a": 0.1}, pods=(4, 1), preempt=2))
    store(NOW - timedelta(seconds=1), sample(queues={"a": 0.1}, pods=(0, 5)))

    queues = queue_series("cpu", NOW - timedelta(minutes=1), NOW, now=NOW).queues
    sessions = session_series(NOW - timedelta(minutes=1), NOW, now=NOW)

    assert queues["a"]["pods_pending"] == [4, 0]
    assert queues["a"]["pods_running"] == [1, 5]
    assert sessions.evictions_by_queue == {"a": [2, 0]}


def test_a_job_has_a_share_series_where_it_was_in_the_top_n() -> None:
    store(NOW - timedelta(seconds=3), sample(queues={"a": 0.1}, top=[["ns/x", "a", 0.2, "cpu"]]))
    store(NOW - timedelta(seconds=2), sample(queues={"a": 0.1}, top=[["ns/y", "a", 0.4, "memory"]]))
    store(NOW - timedelta(seconds=1), sample(queues={"a": 0.1}, top=[["ns/x", "a", 0.3, "cpu"]]))

    jobs = job_share_series(NOW - timedelta(minutes=1), NOW, now=NOW)["jobs"]

    assert jobs["ns/x"] == {"queue": "a", "dominant": "cpu", "share": [0.2, None, 0.3]}
    assert jobs["ns/y"]["share"] == [None, 0.4, None]


def test_a_per_minute_read_reaches_the_sessions_not_rolled_up_yet() -> None:
    minute = NOW - timedelta(minutes=5)
    store(minute, sample(queues={"a": 0.5}, binds=60, e2e=10.0), resolution=60)
    for i in range(3):  # the newest sessions, after the last whole minute
        store(
            minute + timedelta(seconds=60 + 10 * i), sample(queues={"a": 0.75}, binds=1, e2e=40.0)
        )

    queues = queue_series("cpu", NOW - timedelta(hours=6), NOW, now=NOW)
    sessions = session_series(NOW - timedelta(hours=6), NOW, now=NOW)

    assert queues.resolution == 60
    assert queues.queues["a"]["share"] == [0.5, 0.75, 0.75, 0.75]  # levels: every session
    assert sessions.counts["binds"] == [60, 3]  # sums: the tail folded into its minute
    assert sessions.e2e_ms == [10.0, 40.0]


def test_a_rolled_up_point_counts_the_jobs_waiting_at_once_not_one_per_session() -> None:
    waiting = []
    for jobs, tasks in ((5, 12), (5, 12), (4, 9)):  # five jobs wait through three sessions
        one = sample(queues={"a": 0.1}, binds=1)
        one["counts"].update(unschedulable_jobs=jobs, unschedulable_tasks=tasks)
        waiting.append((1, one))

    merged = merge_samples(waiting)

    assert merged["counts"]["unschedulable_jobs"] == 5
    assert merged["counts"]["unschedulable_tasks"] == 12
    assert merged["counts"]["binds"] == 3  # binds still add up
