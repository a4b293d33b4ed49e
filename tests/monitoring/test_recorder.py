"""The history the worker records after each session, and how it is rolled up and pruned."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from monitoring import recorder
from monitoring.models import HistorySample
from monitoring.recorder import compact_history, maybe_compact_history, tiers
from scheduler.worker import run_once
from tests.monitoring.helpers import CONF, sample, store
from tests.scheduler.factories import make_gang, make_node, make_queue, use_conf

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 1, 1, tzinfo=UTC)  # on a ten-minute boundary


def test_a_session_leaves_a_sample_of_queues_job_shares_and_latency() -> None:
    use_conf(CONF)
    make_node("n1", cpu=4)
    make_queue("q1", weight=3)
    make_gang("a", replicas=2, queue="q1")
    make_gang("big", replicas=9, queue="q1")  # cannot fit: unschedulable

    run_once(reconcile=False)

    row = HistorySample.objects.get()
    data = row.figures()
    queues = data["queues"]
    q1 = queues["name"].index("q1")
    assert queues["weight"][q1] == 3
    assert queues["running"][q1] + queues["inqueue"][q1] + queues["pending"][q1] == 2
    assert "cpu" in data["resources"]
    top = data["drf"]["top"]
    assert [j[1] for j in top] == ["q1"]
    assert top[0][2] == pytest.approx(0.5)  # 2 of 4 CPUs: the dominant share
    assert top[0][3] == "cpu"
    assert data["drf"]["queues"]["q1"][0] == 1
    assert data["counts"]["binds"] == 2
    assert data["counts"]["unschedulable_jobs"] == 1
    assert set(data["latency"]["actions"]) == {"enqueue", "allocate", "backfill"}
    assert "drf" in data["latency"]["plugins"]
    assert data["latency"]["e2e"] > 0


def test_a_recorded_sample_keeps_the_stored_layout_with_its_version_and_buckets() -> None:
    make_node("n1")
    make_gang("a", replicas=1)

    run_once(reconcile=False)

    data = HistorySample.objects.get().figures()
    assert set(data) == {"v", "resources", "queues", "drf", "latency", "counts"}
    assert data["v"] == recorder.VERSION == 1
    latency = data["latency"]
    assert set(latency) == {"e2e", "e2e_max", "actions", "plugins", "hist"}
    assert sum(latency["hist"]["e2e"].values()) == 1  # this one session, in one bucket
    assert set(latency["hist"]["actions"]) == set(latency["actions"])


def test_history_off_records_nothing(settings: Any) -> None:
    settings.VOLCANO_HISTORY_ENABLED = "0"
    make_node("n1")
    make_gang("a", replicas=1)

    run_once(reconcile=False)

    assert not HistorySample.objects.exists()


def test_whole_minutes_are_rolled_up_once_with_mean_max_last_and_sum(settings: Any) -> None:
    settings.VOLCANO_HISTORY_TIERS = "0:120,60:600,600:3600"
    for i in range(18):  # every 10 s for three minutes
        store(T0 + timedelta(seconds=10 * i),
              sample(queues={"a": 0.1 * (i % 6)}, weight=i, binds=1, preempt=i % 2))  # fmt: skip

    assert compact_history(now=T0 + timedelta(seconds=180))["rolled"] == 3
    assert compact_history(now=T0 + timedelta(seconds=180))["rolled"] == 0

    minute = HistorySample.objects.get(resolution=60, at=T0).figures()
    row = HistorySample.objects.get(resolution=60, at=T0)
    assert row.samples == 6
    assert minute["queues"]["share"] == [pytest.approx(0.25)]  # mean of 0 .. 0.5
    assert minute["queues"]["share_max"] == [pytest.approx(0.5)]
    assert minute["queues"]["weight"] == [5]  # the last sample's
    assert minute["counts"]["binds"] == 6
    assert minute["counts"]["evictions_by_action"] == {"preempt": 3}
    # Per-session samples older than two minutes are gone.
    assert HistorySample.objects.filter(resolution=0).count() == 12


def test_ten_minutes_roll_up_from_minutes_and_old_samples_are_pruned(settings: Any) -> None:
    settings.VOLCANO_HISTORY_TIERS = "0:120,60:600,600:3600"
    for i in range(18):
        store(T0 + timedelta(seconds=10 * i), sample(queues={"a": 0.2}, binds=1))
    compact_history(now=T0 + timedelta(seconds=180))

    compact_history(now=T0 + timedelta(seconds=700))

    assert not HistorySample.objects.filter(resolution=0).exists()
    assert list(HistorySample.objects.filter(resolution=60).values_list("at", flat=True)) == [
        T0 + timedelta(seconds=120)
    ]
    ten = HistorySample.objects.get(resolution=600)
    assert (ten.at, ten.samples, ten.figures()["counts"]["binds"]) == (T0, 18, 18)


def test_compaction_runs_at_most_once_per_period(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recorder, "_last_compact", None)
    clock = iter([100.0, 130.0, 161.0])

    results = [maybe_compact_history(now=T0, clock=lambda: next(clock)) for _ in range(3)]

    assert [r is not None for r in results] == [True, False, True]


@pytest.mark.parametrize("text", ["0:60,60", "60:600", "0:30,60:600", "0:3600,60:86400,30:9"])
def test_a_bad_tiers_setting_names_the_setting(settings: Any, text: str) -> None:
    settings.VOLCANO_HISTORY_TIERS = text

    with pytest.raises(Exception, match="VOLCANO_HISTORY_TIERS"):
        tiers()


def test_a_recorded_session_tells_open_metrics_pages(
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    from console import live

    sent: list[list[str]] = []
    monkeypatch.setattr(live, "publish", lambda topics: sent.append(list(topics)))
    use_conf(CONF)
    make_node("n1", cpu=4)
    make_gang("a", replicas=1)

    with django_capture_on_commit_callbacks(execute=True):
        run_once(reconcile=False)

    assert [recorder.HISTORY_TOPIC] in sent
