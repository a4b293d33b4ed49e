"""A real Prometheus: the Metrics pages' counts, DRF jobs and gaps read from it agree with the
built-in history at every zoom level.

One scenario for the module (about 12 s): a low-priority job fills a 2-CPU node, then a
high-priority one-pod job preempts exactly one of its pods, sessions every 0.3 s. Prometheus
(Debian's package) scrapes pytest-django's live server every second from before the first
session, so every count the history records is scraped.
"""

from __future__ import annotations

import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.core.cache import cache

from core.models.priority_class import PriorityClass
from core.namespaces import ensure_namespaces
from kubelet.runtime import RuntimeSettings, tick
from monitoring.charts import drf_jobs_figure
from monitoring.history import SessionSeries
from monitoring.prometheus import PrometheusSource
from monitoring.sources import HistorySource
from scheduler import metrics, metrics_cluster, metrics_kube_state
from scheduler.worker import run_once
from tests.jobs.controller_kit import submit, task
from tests.monitoring.prometheus_server import (
    MISSING,
    installed,
    run_prometheus,
    wait_for_targets,
)
from tests.monitoring.turns_kit import TURNS, forget_in_turn, in_turn
from tests.scheduler.factories import make_node, make_queue, use_conf

pytestmark = [
    pytest.mark.skipif(not installed(), reason=MISSING),
    pytest.mark.django_db(transaction=True),  # the live server reads committed rows
]

PREEMPT_CONF = """\
actions: "enqueue, allocate, preempt, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
- plugins:
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: proportion
  - name: nodeorder
"""
KUBELET = RuntimeSettings(start_delay=0.0, default_duration=600.0, speed=1.0)
ZOOMS = {"15m": timedelta(minutes=15), "1h": timedelta(hours=1), "6h": timedelta(hours=6)}


@dataclass(frozen=True)
class Played:
    """Prometheus' URL, when it began scraping, the range's end, the history's sessions."""

    url: str
    began: datetime
    until: datetime
    history: dict[str, SessionSeries]


def _sessions_for(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        with TURNS:
            run_once()
            tick(config=KUBELET)
        time.sleep(0.3)


def _play() -> None:
    ensure_namespaces(["default"])
    use_conf(PREEMPT_CONF)
    make_node("n1", cpu=2)
    # room for every job's admission (enqueue), but no pod tolerates its taint
    make_node("n2", cpu=2, taints=[{"key": "spare", "effect": "NoSchedule"}])
    PriorityClass.objects.create(name="low-priority", value=10)
    PriorityClass.objects.create(name="high-priority", value=1000)
    submit("preemptee", [task("w", 2)], minAvailable=1, priorityClassName="low-priority")
    nowhere = task("w", 2)  # admitted, but no node has the label: both pods wait throughout
    nowhere["template"]["spec"]["nodeSelector"] = {"disk": "none"}
    submit("nowhere", [nowhere], minAvailable=1, priorityClassName="low-priority")
    _sessions_for(3.0)
    submit("preemptor", [task("w", 1)], minAvailable=1, priorityClassName="high-priority")
    _sessions_for(4.0)


@pytest.fixture(scope="module")
def played(
    django_db_setup: None,
    django_db_blocker: Any,
    live_server: Any,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Played]:
    target = urllib.parse.urlsplit(live_server.url).netloc
    with (
        pytest.MonkeyPatch.context() as patch,
        django_db_blocker.unblock(),
        run_prometheus(tmp_path_factory.mktemp("prometheus"), target) as url,
    ):
        for module in (metrics_cluster, metrics_kube_state):
            name = "cluster_families" if module is metrics_cluster else "kube_state_families"
            patch.setattr(module, name, in_turn(getattr(module, name)))
        patch.setattr(metrics, "forget_deleted_jobs", forget_in_turn(metrics.forget_deleted_jobs))
        cache.clear()
        make_queue("default")  # scraped before any session: counters born later count from 0
        wait_for_targets(url)
        began = datetime.now(UTC)
        time.sleep(2.0)
        _play()
        time.sleep(2.5)  # the last figures scraped
        until = datetime.now(UTC)
        history = {
            zoom: HistorySource().session_series(until - span, until)
            for zoom, span in ZOOMS.items()
        }
        yield Played(url=url, began=began, until=until, history=history)


@pytest.mark.parametrize("zoom", list(ZOOMS))
def test_one_eviction_reads_one_and_binds_equal_the_history_at_every_zoom(
    played: Played, zoom: str
) -> None:
    source = PrometheusSource(played.url, scrape_interval=1)

    got = source.session_series(played.until - ZOOMS[zoom], played.until)

    history = played.history[zoom]
    assert sum(history.counts["evictions"]) == 1  # the scenario: one pod preempted
    assert sum(got.counts["evictions"]) == 1
    assert {k: sum(v) for k, v in got.evictions_by_action.items()} == {"preempt": 1}
    assert sum(got.counts["binds"]) == sum(history.counts["binds"]) == 3
    assert sum(got.sessions) == sum(history.sessions)
    assert all(isinstance(n, int) for n in got.counts["evictions"])


def test_the_most_unschedulable_tasks_at_once_reads_the_same_at_every_zoom(played: Played) -> None:
    source = PrometheusSource(played.url, scrape_interval=1)

    peaks = {
        zoom: max(source.session_series(played.until - span, played.until).counts[
            "unschedulable_tasks"])
        for zoom, span in ZOOMS.items()
    }  # fmt: skip

    assert len(set(peaks.values())) == 1, peaks
    assert peaks["15m"] >= 2  # the two pods no node matches
    assert max(played.history["15m"].counts["unschedulable_tasks"]) == peaks["15m"]


def test_hours_without_sessions_are_gaps_not_zero_milliseconds(played: Played) -> None:
    source = PrometheusSource(played.url, scrape_interval=1)

    got = source.session_series(played.until - ZOOMS["6h"], played.until)

    before = [
        ms for at, ms in zip(got.times, got.e2e_ms, strict=True)
        if datetime.fromisoformat(at) < played.began - timedelta(minutes=1)
    ]  # fmt: skip
    assert len(before) > 600  # the five hours and more before Prometheus began
    assert set(before) == {None}
    assert all(v is None for v in got.e2e_max_ms[: len(before)])
    assert [ms for ms in got.e2e_ms if ms is not None and ms > 0]


def test_the_drf_jobs_chart_shows_the_jobs_share_and_no_series_has_an_empty_queue(
    played: Played,
) -> None:
    source = PrometheusSource(played.url, scrape_interval=1)
    since = played.until - ZOOMS["15m"]

    shares = source.job_share_series(since, played.until)
    queues = source.queue_series("cpu", since, played.until)

    running = {uid: job for uid, job in shares["jobs"].items() if job["share"][-1]}
    assert set(running) == {
        uid for uid in running if uid.startswith(("default/preemptee-", "default/preemptor-"))
    }
    assert len(running) == 2
    assert all(job["queue"] == "default" for job in running.values())
    # one CPU each of the two nodes' four: each job's dominant share is a quarter
    assert sorted(round(job["share"][-1], 3) for job in running.values()) == [0.25, 0.25]
    figure = drf_jobs_figure(shares)
    assert len(figure.data) == 2
    assert "" not in shares["queues"]
    assert "" not in queues.queues
    assert "" not in {row[1] for row in shares["top"]}
