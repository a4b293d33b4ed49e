"""A real Prometheus scraping the console: the charts read from it equal the built-in history's,
and every PromQL expression of Volcano's shipped Grafana dashboards returns data.

One scenario runs once for the module (about 15 s): jobs submitted through the job controller
into two queues, sessions every 0.3 s, pods started and finished by the simulated kubelet, a
user listing pods through the API,
then a change half-way (a queue's weight, a new node, a new job) so the series move. Prometheus
(Debian's package, on a free loopback port) scrapes ``/metrics`` and
``/metrics/kube-state-metrics`` and ``/metrics/apiserver`` of pytest-django's live server
every second. The built-in
history's series are read before the module's database is flushed; Prometheus keeps its own.
"""

from __future__ import annotations

import json
import math
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client

from core.namespaces import ensure_namespaces
from jobs.services import job_submit
from kubelet.runtime import RuntimeSettings, tick
from monitoring.history import QueueSeries, SessionSeries
from monitoring.prometheus import PrometheusSource
from monitoring.sources import HistorySource
from queues.models import Queue
from scheduler import metrics, metrics_cluster, metrics_kube_state
from scheduler.worker import run_once
from tests.monitoring.helpers import CONF
from tests.monitoring.prometheus_server import (
    MISSING,
    api,
    installed,
    run_prometheus,
    stop_scraping,
    wait_for_targets,
)
from tests.monitoring.turns_kit import TURNS, forget_in_turn, in_turn
from tests.scheduler.factories import make_node, make_queue, use_conf

pytestmark = [
    pytest.mark.skipif(not installed(), reason=MISSING),
    pytest.mark.django_db(transaction=True),  # the live server reads committed rows
]

DASHBOARDS = Path(__file__).with_name("volcano_dashboards_promql.json")
KUBELET = RuntimeSettings(start_delay=0.0, default_duration=600.0, speed=1.0)
PHASE_SECONDS = 5.0


@dataclass(frozen=True)
class Scraped:
    """What the scenario left: Prometheus' URL, the time range, the history's series."""

    url: str
    since: datetime
    until: datetime
    queues: QueueSeries
    # The history from two scrape intervals before ``since``: a Prometheus sample at ``since``
    # may come from a scrape made up to an interval earlier, of a figure held just before.
    queues_before: QueueSeries
    sessions: SessionSeries
    shares: dict[str, Any]


def _job(name: str, queue: str, *, replicas: int, min_available: int | None = None,
         cpu: str = "1", gpu: str = "", command: list[str] | None = None) -> None:  # fmt: skip
    requests = {"cpu": cpu, "memory": "1Gi", **({"nvidia.com/gpu": gpu} if gpu else {})}
    container: dict[str, Any] = {"name": "main", "image": "busybox",
                                 "resources": {"requests": requests}}  # fmt: skip
    if command:
        container["command"] = command
    spec: dict[str, Any] = {
        "queue": queue,
        "tasks": [{"name": "worker", "replicas": replicas,
                   "template": {"spec": {"containers": [container], "restartPolicy": "Never"}}}],
    }  # fmt: skip
    if min_available is not None:
        spec["minAvailable"] = min_available
    job_submit(manifest={"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
                         "metadata": {"name": name, "namespace": "default"}, "spec": spec})  # fmt: skip


def _sessions_for(seconds: float, client: Client) -> None:
    """Run a session and a kubelet tick every 0.3 s for ``seconds``; a user lists pods."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        with TURNS:
            run_once()
            tick(config=KUBELET)
            assert client.get("/api/v1/namespaces/default/pods").status_code == 200
        time.sleep(0.3)


def _play() -> datetime:
    """Build the cluster, run both phases; return when the comparison may start."""
    cache.clear()
    ensure_namespaces(["default"])  # an earlier test's flush may have taken the migration's
    use_conf(CONF)
    make_node("n1", cpu=4)
    make_node("n2", cpu=4, gpu=2)
    client = Client()
    client.force_login(User.objects.create_superuser("prometheus-test", "p@example.com", "pw"))
    make_queue("q1", weight=1)
    make_queue("q2", weight=2, capability={"cpu": 8000, "nvidia.com/gpu": 2000})
    _job("train", "q1", replicas=2)
    _job("elastic", "q2", replicas=6, min_available=1, cpu="2")  # part of it waits for room
    _job("gpu", "q2", replicas=1, gpu="1")
    _job("short", "q2", replicas=1, command=["sleep", "2"])  # finishes: "finished" panels
    _sessions_for(4.0, client)  # the short job has come and gone
    settled = datetime.now(UTC) + timedelta(seconds=1)
    _sessions_for(PHASE_SECONDS, client)
    # Phase 2: the figures move; the elastic job's later tasks raise its duration gauge.
    Queue.objects.filter(name="q1").update(weight=3)
    make_node("n3", cpu=4)
    _job("late", "q1", replicas=1)
    _sessions_for(PHASE_SECONDS, client)
    return settled


@pytest.fixture(scope="module")
def scraped(
    django_db_setup: None,
    django_db_blocker: Any,
    live_server: Any,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Scraped]:
    """Play the scenario once under a Prometheus scraping the live server."""
    target = urllib.parse.urlsplit(live_server.url).netloc
    folder = tmp_path_factory.mktemp("prometheus")
    with (
        pytest.MonkeyPatch.context() as patch,
        django_db_blocker.unblock(),  # the live server's thread reads the rows too
        run_prometheus(folder, target) as url,
    ):
        for module in (metrics_cluster, metrics_kube_state):
            name = "cluster_families" if module is metrics_cluster else "kube_state_families"
            patch.setattr(module, name, in_turn(getattr(module, name)))
        patch.setattr(metrics, "forget_deleted_jobs", forget_in_turn(metrics.forget_deleted_jobs))
        wait_for_targets(url)
        since = _play()
        time.sleep(2.5)  # the last figures scraped
        until = datetime.now(UTC) - timedelta(seconds=1)
        history = HistorySource()
        scraped = Scraped(
            url=url,
            since=since,
            until=until,
            queues=history.queue_series("cpu", since, until, resolution=0),
            queues_before=history.queue_series(
                "cpu", since - timedelta(seconds=2), until, resolution=0
            ),
            sessions=history.session_series(since, until, resolution=0),
            shares=history.job_share_series(since, until, resolution=0),
        )
        stop_scraping(folder, url)  # the tests below read what was scraped up to ``until``
        yield scraped


def _steps(values: list[Any]) -> list[Any]:
    """Return the values in order with repeats and gaps dropped (what a line shows)."""
    out: list[Any] = []
    for value in values:
        if value is not None and (not out or out[-1] != value):
            out.append(value)
    return out


def _held(times: list[str], values: list[Any], seconds: float) -> list[Any]:
    """Return the steps of ``values`` that lasted at least ``seconds`` (or ran to the end)."""
    runs: list[tuple[Any, datetime, datetime]] = []  # value, first seen, last seen
    for at, value in zip(times, values, strict=True):
        if value is None:
            continue
        when = datetime.fromisoformat(at)
        if runs and runs[-1][0] == value:
            runs[-1] = (value, runs[-1][1], when)
        else:
            if runs:
                runs[-1] = (runs[-1][0], runs[-1][1], when)
            runs.append((value, when, when))
    kept = [v for i, (v, start, end) in enumerate(runs)
            if i == len(runs) - 1 or (end - start).total_seconds() >= seconds]  # fmt: skip
    return _steps(kept)


def _in_order(needles: list[Any], haystack: list[Any]) -> bool:
    remaining = iter(haystack)
    return all(any(v == n for v in remaining) for n in needles)


def test_prometheus_queue_series_equal_the_built_in_history(scraped: Scraped) -> None:
    # share is left out: the history keeps the proportion plugin's figure as the session
    # computed it, /metrics the ratio of the rows after the session (see the report)
    fields = ("weight", "allocated", "deserved", "running", "pending", "inqueue")
    source = PrometheusSource(scraped.url, scrape_interval=1)

    from_prometheus = source.queue_series(
        "cpu", scraped.since, scraped.until, fields=fields, resolution=1
    )

    assert source.label == f"Prometheus at {scraped.url}"
    history = scraped.queues
    for queue in ("q1", "q2"):
        for field in fields:
            recorded = history.queues[queue][field]
            got = _steps(from_prometheus.queues[queue][field])
            # Prometheus sees each figure at its next scrape (up to 1 s late): every figure the
            # history held for 2.5 s shows in the same order, the last one included, and
            # nothing the history never had (since a scrape interval before the window: a
            # loaded machine's first sample may be the scrape of the figure just before it).
            lasting = _held(history.times, recorded, 2.5)
            assert _in_order(lasting, got), f"{queue}.{field}: {got} lacks {lasting}"
            assert got[-1] == lasting[-1], f"{queue}.{field}"
            earlier = scraped.queues_before.queues[queue][field]
            assert set(got) <= set(_steps(earlier)), f"{queue}.{field}: {got}"
    assert _steps(from_prometheus.queues["q1"]["weight"]) == [1, 3]


def test_prometheus_session_series_name_the_same_actions_plugins_and_latencies(
    scraped: Scraped,
) -> None:
    history = scraped.sessions
    source = PrometheusSource(scraped.url, scrape_interval=1)

    got = source.session_series(scraped.since, scraped.until, resolution=1)

    assert set(got.action_ms) == set(history.action_ms)
    assert set(got.plugin_ms) == set(history.plugin_ms)
    means = [v for v in got.e2e_ms if v]
    recorded = [v for v in history.e2e_ms if v is not None]
    assert means
    assert min(recorded) * 0.5 <= sum(means) / len(means) <= max(recorded) * 1.5
    # about three sessions a second were run; Prometheus sees the range's edges a scrape late
    assert 0.5 * len(history.sessions) <= sum(got.sessions) <= 1.5 * len(history.sessions)


def test_prometheus_job_shares_equal_the_drf_shares_of_the_last_session(
    scraped: Scraped,
) -> None:
    source = PrometheusSource(scraped.url, scrape_interval=1)

    got = source.job_share_series(scraped.since, scraped.until, resolution=1)

    expected = sorted((job[1], round(job[2], 4)) for job in scraped.shares["top"])
    assert sorted((job[1], round(job[2], 4)) for job in got["top"]) == expected
    for queue, series in scraped.shares["queues"].items():
        assert _steps(got["queues"][queue]["jobs"])[-1] == _steps(series["jobs"])[-1]


def _dashboard_cases() -> list[dict[str, Any]]:
    return list(json.loads(DASHBOARDS.read_text())["expressions"])


@pytest.mark.parametrize(
    "case", _dashboard_cases(), ids=lambda c: f"{c['uid']}:{c['panel']}:{c['ref']}"
)
def test_every_expression_of_volcanos_dashboards_returns_data(
    scraped: Scraped, case: dict[str, Any]
) -> None:
    expr = case["expr"].replace("$queue", "q2").replace("$namespace", "default")
    at = f"{scraped.until.timestamp():.3f}"
    if expr.startswith("label_values("):  # a Grafana variable: the label's values
        metric, label = (p.strip() for p in expr[len("label_values(") : -1].split(","))
        series = api(scraped.url, "/api/v1/series", **{"match[]": metric,
                                                       "start": at, "end": at})  # fmt: skip
        assert {s.get(label) for s in series} - {None}, expr
        return

    result = api(scraped.url, "/api/v1/query", query=expr, time=at)["result"]

    assert result, f"no data for {expr}"
    values = [float(r["value"][1]) for r in result]
    assert any(not math.isnan(v) for v in values), f"only NaN for {expr}"
