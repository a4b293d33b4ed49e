"""PrometheusSource against a fake Prometheus: the PromQL it sends, the step it picks, the units
and shapes it returns, and the error a page shows when Prometheus cannot answer."""

from __future__ import annotations

import json
import math
import threading
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.test import override_settings

from monitoring import latency, promql
from monitoring.prometheus import PrometheusError, PrometheusSource
from monitoring.sources import HistorySource, current_source

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
Answer = Callable[[str, dict[str, str]], tuple[int, bytes]]


@dataclass
class FakePrometheus:
    """An HTTP server answering ``/api/v1/*`` with ``answer(path, params)``; it keeps the calls."""

    url: str
    calls: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    authorization: list[str] = field(default_factory=list)
    answer: Answer = lambda path, params: (200, b"{}")


def _matrix(result: list[dict[str, Any]]) -> bytes:
    return json.dumps(
        {"status": "success", "data": {"resultType": "matrix", "result": result}}
    ).encode()


@pytest.fixture
def fake() -> Iterator[FakePrometheus]:
    server_box: dict[str, FakePrometheus] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parsed = urllib.parse.urlsplit(self.path)
            params = dict(urllib.parse.parse_qsl(parsed.query))
            box = server_box["fake"]
            box.calls.append((parsed.path, params))
            box.authorization.append(self.headers.get("Authorization", ""))
            code, body = box.answer(parsed.path, params)
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            """Keep the test output free of the fake server's access log."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server_box["fake"] = FakePrometheus(f"http://127.0.0.1:{server.server_address[1]}")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server_box["fake"]
    server.shutdown()
    server.server_close()


def test_the_step_keeps_a_range_under_720_points_and_never_below_the_scrape_interval() -> None:
    assert promql.choose_step(15 * 60, scrape_interval=1) == 2
    assert promql.choose_step(3600, scrape_interval=15) == 15
    assert promql.choose_step(7 * 86400, scrape_interval=15) == 900
    for span in (60, 900, 3600, 6 * 3600, 86400, 7 * 86400):
        step = promql.choose_step(span, scrape_interval=1)
        assert span / step <= 720


def test_queue_figures_ask_volcanos_series_by_resource() -> None:
    assert promql.queue_query("allocated", "cpu", step=15) == "volcano_queue_allocated_milli_cpu"
    assert promql.queue_query("deserved", "memory", step=15, queue="q1") == (
        'volcano_queue_deserved_memory_bytes{queue_name="q1"}'
    )
    gpu = promql.queue_query("allocated", "nvidia.com/gpu", step=15)
    assert gpu == 'volcano_queue_allocated_scalar_resources{resource="nvidia.com/gpu"}'
    assert promql.queue_query("running", "cpu", step=15) == "volcano_queue_pod_group_running_count"
    assert promql.queue_query("share_max", "cpu", step=60) == (
        "max_over_time(volcano_queue_share[60s])"
    )
    assert promql.queue_query("guarantee", "cpu", step=15) is None  # Volcano exports none


def test_session_counters_are_read_as_totals_not_rounded_rates() -> None:
    counters = promql.session_counters()

    assert counters["sessions"] == "sum(volcano_e2e_scheduling_latency_milliseconds_count)"
    assert counters["evictions_by_action"] == (
        "sum by (action) (volcano_eviction_transactions_total)"
    )
    assert all("rate(" not in expr for expr in counters.values())
    assert promql.session_gauges(15, 1)["unschedulable_jobs"] == (
        "max_over_time(sum(volcano_unschedule_job_count)[15s:1s])"
    )


def test_queue_series_come_back_in_the_historys_units_and_shape(fake: FakePrometheus) -> None:
    start = T0.timestamp()

    def answer(path: str, params: dict[str, str]) -> tuple[int, bytes]:
        assert path == "/api/v1/query_range"
        if params["query"] == "volcano_queue_allocated_memory_bytes":
            return 200, _matrix([{"metric": {"queue_name": "q1"},
                                  "values": [[start, "1024"], [start + 30, "2048"]]}])  # fmt: skip
        if params["query"] == "volcano_queue_weight":
            return 200, _matrix([{"metric": {"queue_name": "q1"}, "values": [[start + 15, "3"]]}])
        return 200, _matrix([])

    fake.answer = answer
    source = PrometheusSource(fake.url, scrape_interval=15)

    series = source.queue_series(
        "memory", T0, T0 + timedelta(seconds=30), fields=("allocated", "weight", "guarantee")
    )

    assert series.resolution == 15
    assert series.times == [(T0 + timedelta(seconds=s)).isoformat() for s in (0, 15, 30)]
    q1 = series.queues["q1"]
    assert q1["allocated"] == [1024_000, None, 2048_000]  # bytes → the engine's milli-bytes
    assert q1["weight"] == [None, 3, None]
    assert q1["guarantee"] == [None, None, None]
    step_asked = {params["step"] for _, params in fake.calls}
    assert step_asked == {"15"}


def test_a_bad_field_names_the_field(fake: FakePrometheus) -> None:
    with pytest.raises(ValueError, match="fields: unknown queue field"):
        PrometheusSource(fake.url).queue_series("cpu", T0, T0, fields=("nonsense",))


Edges = dict[str, list[tuple[dict[str, str], list[float | None]]]]


def _vector(result: list[dict[str, Any]]) -> bytes:
    return json.dumps(
        {"status": "success", "data": {"resultType": "vector", "result": result}}
    ).encode()


def _at_edges(table: Edges, step: int) -> Answer:
    """Answer each query of ``table`` with its series' values: one per grid time from
    ``query_range``, the last one (the range's end) from an instant ``query``."""

    def answer(path: str, params: dict[str, str]) -> tuple[int, bytes]:
        series = table.get(params["query"], [])
        if path == "/api/v1/query_range":
            start, stop = float(params["start"]), float(params["end"])
            count = round((stop - start) / step) + 1
            return 200, _matrix([
                {"metric": labels, "values": [[start + i * step, str(v)]
                                              for i, v in enumerate(values[:count])
                                              if v is not None]}
                for labels, values in series
            ])  # fmt: skip
        return 200, _vector([
            {"metric": labels, "value": [float(params["time"]), str(values[-1])]}
            for labels, values in series if values[-1] is not None
        ])  # fmt: skip

    return answer


def test_session_counts_are_the_counters_differences_between_step_edges(
    fake: FakePrometheus,
) -> None:
    """Steps at T0, T0+15 and T0+30; the last ends at the range's end (T0+40). Each list
    holds a series' value at the four edges."""
    counters = promql.session_counters()
    gauges = promql.session_gauges(15)
    fake.answer = _at_edges({
        promql.SCRAPED: [({}, [None, 2, 2, 2])],  # Prometheus began scraping after T0
        counters["sessions"]: [({}, [None, 10, 25, 27])],
        counters["e2e_sum"]: [({}, [None, 100.0, 287.5, 307.5])],
        counters["action_count"]: [({"action": "allocate"}, [None, 10, 25, 27])],
        counters["action_sum"]: [({"action": "allocate"}, [None, 40.0, 107.5, 116.5])],
        counters["evictions_by_action"]: [
            ({"action": "preempt"}, [None, None, 1, 1]),  # the first eviction ever: 0 → 1
            ({"action": "reclaim"}, [None, 3, 3, 4]),  # 3 before the first scrape: unknown
        ],
        counters["binds"]: [({}, [None, 5, 8, 2])],  # restarted in the last step
        gauges["unschedulable_jobs"]: [({}, [0, 4, 1, None])],  # at T0+15: (T0, T0+15]
        gauges["unschedulable_tasks"]: [({}, [0, 0, 4, None])],
        "max_over_time(sum(volcano_unschedule_job_count)[10s:15s])": [({}, [None, None, None, 2])],
        "max_over_time(sum(volcano_unschedule_task_count)[10s:15s])": [({}, [None, None, None, 3])],
    }, step=15)  # fmt: skip

    got = PrometheusSource(fake.url).session_series(T0, T0 + timedelta(seconds=40))

    assert got.times == [(T0 + timedelta(seconds=s)).isoformat() for s in (0, 15, 30)]
    assert got.sessions == [0, 15, 2]
    assert got.e2e_ms == [None, 12.5, 10.0]  # no session: a gap, not 0 ms
    assert got.action_ms == {"allocate": [None, 4.5, 4.5]}
    assert got.evictions_by_action == {"preempt": [0, 1, 0], "reclaim": [0, 0, 1]}
    assert got.counts["evictions"] == [0, 1, 1]
    assert got.counts["binds"] == [0, 3, 2]
    assert got.counts["unschedulable_jobs"] == [4, 1, 2]  # each step's peak: jobs waiting at once
    assert got.counts["unschedulable_tasks"] == [0, 4, 3]


@dataclass(frozen=True)
class ErrorCase:
    name: str
    code: int
    body: bytes
    message: str


ERROR_CASES = [
    ErrorCase("http 500", 500, b'{"status":"error","error":"boom"}', "answered HTTP 500: boom"),
    ErrorCase("not json", 200, b"<html>grafana</html>", "not JSON"),
    ErrorCase(
        "refused",
        200,
        b'{"status":"error","error":"parse error"}',
        "refused the query: parse error",
    ),
    ErrorCase(
        "wrong shape", 200, b'{"status":"success","data":{"resultType":"vector"}}', "with a matrix"
    ),
]


@pytest.mark.parametrize("case", ERROR_CASES, ids=lambda c: c.name)
def test_a_prometheus_that_cannot_answer_gives_a_sentence_not_a_crash(
    fake: FakePrometheus, case: ErrorCase
) -> None:
    fake.answer = lambda path, params: (case.code, case.body)

    with pytest.raises(PrometheusError, match=case.message) as error:
        PrometheusSource(fake.url).queue_series("cpu", T0, T0 + timedelta(minutes=5))

    assert fake.url in str(error.value) or "matrix" in str(error.value)


def test_nothing_listening_is_reported_with_the_url() -> None:
    source = PrometheusSource("http://127.0.0.1:9", timeout=1)

    with pytest.raises(PrometheusError, match=r"Prometheus at http://127.0.0.1:9 did not answer"):
        source.session_series(T0, T0 + timedelta(minutes=5))


def test_a_url_that_is_not_http_names_the_setting() -> None:
    with pytest.raises(PrometheusError, match="PROMETHEUS_URL: 'localhost:9090' is not"):
        PrometheusSource("localhost:9090")


def test_the_token_is_sent_as_a_bearer_token(fake: FakePrometheus) -> None:
    fake.answer = lambda path, params: (200, _matrix([]))

    PrometheusSource(fake.url, token="s3cret").queue_series(
        "cpu", T0, T0 + timedelta(minutes=1), fields=("weight",)
    )

    assert fake.authorization == ["Bearer s3cret"]


def test_the_pages_read_prometheus_only_when_its_url_is_set() -> None:
    with override_settings(PROMETHEUS_URL=""):
        assert isinstance(current_source(), HistorySource)
    with override_settings(PROMETHEUS_URL="http://prometheus:9090/", PROMETHEUS_SCRAPE_INTERVAL=5):
        source = current_source()
        assert isinstance(source, PrometheusSource)
        assert source.name == "prometheus"
        assert source.label == "Prometheus at http://prometheus:9090"
        assert source.scrape_interval == 5


def test_latency_percentiles_come_from_prometheus_buckets_as_from_the_history(
    fake: FakePrometheus,
) -> None:
    """Per step, the sessions per bucket (``le`` cumulative in Prometheus) become the
    history's counts, so the charts read the same p50/p95/p99 from either source."""
    bounds = latency.BOUNDS["e2e"]
    low, mid = bounds[2], bounds[5]
    counters = promql.session_counters()

    def le(bound: float) -> dict[str, str]:
        return {"le": "+Inf" if bound == math.inf else repr(bound)}

    # 3 sessions ≤ low, 2 more ≤ mid, 1 above, all in the first step; none in the second
    fake.answer = _at_edges({
        promql.SCRAPED: [({}, [1, 1, 1])],
        counters["sessions"]: [({}, [4, 10, 10])],
        counters["e2e_buckets"]: [
            (le(low), [1, 4, 4]), (le(mid), [2, 7, 7]), (le(math.inf), [4, 10, 10]),
        ],
        counters["action_buckets"]: [({"action": "allocate", **le(math.inf)}, [4, 10, 10])],
    }, step=15)  # fmt: skip

    got = PrometheusSource(fake.url).session_series(T0, T0 + timedelta(seconds=20))

    first, empty = got.histograms
    assert empty == {"e2e": {}, "actions": {}, "plugins": {}}  # no session in the second step
    assert first is not None
    assert first["e2e"] == {
        str(latency.bucket_of("e2e", low)): 3,
        str(latency.bucket_of("e2e", mid)): 2,
        str(len(bounds)): 1,
    }
    assert first["actions"] == {"allocate": {str(len(latency.BOUNDS["actions"])): 6}}
    assert first["plugins"] == {}
    # the median falls in the first bucket holding sessions, as histogram_quantile reads it
    median = latency.quantile(0.5, "e2e", first["e2e"])
    assert median is not None
    assert bounds[1] < median <= low
    assert got.e2e_max_ms[1] is None
