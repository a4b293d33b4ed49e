"""A Prometheus as the Metrics pages' source: its HTTP API answers the charts' three calls.

``PrometheusSource`` is a ``monitoring.sources.MetricsSource``: ``queue_series``,
``session_series`` and ``job_share_series`` return ``monitoring.history``'s shapes, read with
``/api/v1/query_range`` (and one ``/api/v1/query`` for the "now" top jobs) using the PromQL of
``monitoring.promql``. Values are converted to the history's units (milli-units, ms), times are
the query's steps (ISO strings, UTC) and a series missing at a step is ``None``.

Every failure (nothing listening, a bad URL, a timeout, an HTTP error, a body that is not
Prometheus' JSON, a query Prometheus refuses) raises ``PrometheusError`` with a sentence the
page can show; nothing else escapes. The standard library's ``urllib`` is enough, and timeouts
are short so a page never hangs on a Prometheus that does not answer.
"""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from monitoring import history, latency, promql
from monitoring.history import QueueSeries, SessionSeries

__all__ = ["PrometheusClient", "PrometheusError", "PrometheusSource", "Series"]

Series = tuple[dict[str, str], dict[float, float]]  # labels, {unix time: value}


class PrometheusError(Exception):
    """Prometheus could not answer; ``str(error)`` is a sentence for the page."""


class PrometheusClient:
    """The two calls of Prometheus' HTTP API the source needs."""

    def __init__(self, url: str, *, timeout: float = 5.0, token: str = "") -> None:
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise PrometheusError(
                f"PROMETHEUS_URL: {url!r} is not an http(s) URL such as http://localhost:9090"
            )
        self.url = url.rstrip("/")
        self.timeout = timeout
        self.token = token

    def query_range(self, expr: str, start: float, end: float, step: int) -> list[Series]:
        """Return each series of ``expr`` over ``start``..``end`` (unix seconds)."""
        data = self._get("/api/v1/query_range", {
            "query": expr, "start": f"{start:.3f}", "end": f"{end:.3f}", "step": str(step),
        })  # fmt: skip
        return [
            (dict(item.get("metric", {})), {float(t): _number(v) for t, v in item["values"]})
            for item in _result(data, "matrix", expr)
        ]

    def query(self, expr: str, at: float) -> list[tuple[dict[str, str], float]]:
        """Return each series of ``expr`` at ``at`` (an instant vector)."""
        data = self._get("/api/v1/query", {"query": expr, "time": f"{at:.3f}"})
        return [
            (dict(item.get("metric", {})), _number(item["value"][1]))
            for item in _result(data, "vector", expr)
        ]

    def _get(self, path: str, params: dict[str, str]) -> dict[str, Any]:
        request = urllib.request.Request(f"{self.url}{path}?{urllib.parse.urlencode(params)}")
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                body = response.read()
        except urllib.error.HTTPError as exc:
            raise PrometheusError(_http_error(self.url, exc)) from exc
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            raise PrometheusError(f"Prometheus at {self.url} did not answer: {reason}") from exc
        try:
            data = json.loads(body)
        except ValueError as exc:
            raise PrometheusError(
                f"Prometheus at {self.url} answered something that is not JSON; "
                "is PROMETHEUS_URL the Prometheus server (not its /graph page or a proxy)?"
            ) from exc
        if not isinstance(data, dict) or data.get("status") != "success":
            raise PrometheusError(_refused(self.url, data))
        return data


def _http_error(url: str, exc: urllib.error.HTTPError) -> str:
    try:
        detail = json.loads(exc.read()).get("error", "")
    except (ValueError, AttributeError, OSError):
        detail = ""
    hint = f": {detail}" if detail else ""
    return f"Prometheus at {url} answered HTTP {exc.code}{hint}"


def _refused(url: str, data: Any) -> str:
    if isinstance(data, dict) and data.get("error"):
        return f"Prometheus at {url} refused the query: {data['error']}"
    return f"Prometheus at {url} answered without a result; is it a Prometheus HTTP API?"


def _result(data: dict[str, Any], kind: str, expr: str) -> list[dict[str, Any]]:
    body = data.get("data")
    if not isinstance(body, dict) or body.get("resultType") != kind:
        raise PrometheusError(f"Prometheus did not answer {expr!r} with a {kind}")
    result = body.get("result")
    if not isinstance(result, list):
        raise PrometheusError(f"Prometheus did not answer {expr!r} with a {kind}")
    return result


def _number(text: Any) -> float:
    try:
        return float(text)
    except (TypeError, ValueError) as exc:
        raise PrometheusError(f"Prometheus answered {text!r} where a number was due") from exc


class PrometheusSource:
    """The Metrics pages' series, read from a Prometheus that scrapes ``/metrics``."""

    name = "prometheus"

    def __init__(
        self,
        url: str,
        *,
        token: str = "",
        timeout: float = 5.0,
        scrape_interval: int = 15,
        max_points: int = 720,
        top: int = 50,
    ) -> None:
        self.client = PrometheusClient(url, timeout=timeout, token=token)
        self.label = f"Prometheus at {self.client.url}"
        self.scrape_interval = max(int(scrape_interval), 1)
        self.max_points = max_points
        self.top = top

    # --- the three calls ------------------------------------------------------------------
    def queue_series(
        self,
        resource: str,
        since: datetime,
        until: datetime,
        *,
        fields: tuple[str, ...] = history.QUEUE_FIELDS,
        resolution: int | None = None,
    ) -> QueueSeries:
        """Every queue's ``fields`` for ``resource`` (milli-units), one point per step."""
        unknown = [f for f in fields if f not in _queue_fields()]
        if unknown:
            raise ValueError(f"fields: unknown queue field(s) {', '.join(unknown)}")
        step, grid = self._grid(since, until, resolution)
        out = QueueSeries(resource=resource, resolution=step, times=_iso(grid))
        scale = promql.resource_scale(resource)
        per_queue: dict[str, dict[str, list[float | None]]] = {}
        for key in fields:
            expr = promql.queue_query(key, resource, step=step)
            if expr is None:
                continue
            factor = scale if key in ("allocated", "deserved", "capability") else 1.0
            for labels, points in self._range(expr, grid, step):
                name = labels.get("queue_name", "")
                per_queue.setdefault(name, {})[key] = _aligned(points, grid, factor)
        for name in sorted(per_queue):
            series = per_queue[name]
            out.queues[name] = {k: series.get(k, [None] * len(grid)) for k in fields}
        return out

    def session_series(
        self, since: datetime, until: datetime, *, resolution: int | None = None
    ) -> SessionSeries:
        """The sessions' latencies (ms) and counts per step."""
        step, grid = self._grid(since, until, resolution)
        out = SessionSeries(resolution=step, times=_iso(grid))
        queries = promql.session_queries(step=step, scrape_interval=self.scrape_interval)
        sessions = self._single(queries["sessions"], grid, step)
        out.sessions = [round(v or 0) for v in sessions]
        out.e2e_ms = [_or_zero(v) for v in self._single(queries["e2e_ms"], grid, step)]
        out.e2e_max_ms = [_or_zero(v) for v in self._single(queries["e2e_max_ms"], grid, step)]
        out.action_ms = self._by(queries["action_ms"], "action", grid, step)
        out.plugin_ms = self._by(queries["plugin_ms"], "plugin", grid, step)
        by_action = self._by(queries["evictions_by_action"], "action", grid, step)
        out.evictions_by_action = {k: _counts(v) for k, v in by_action.items()}
        evictions = [sum(c) for c in zip(*out.evictions_by_action.values(), strict=True)]
        binds = self._single(queries["binds"], grid, step)
        jobs = self._single(queries["unschedulable_jobs"], grid, step)
        tasks = self._single(queries["unschedulable_tasks"], grid, step)
        out.histograms = self._histograms(queries, grid, step)
        out.counts = {
            "binds": _counts(binds),
            "evictions": evictions or [0] * len(grid),
            # gauges of the last session: times the sessions in the step, as the history sums
            "unschedulable_jobs": _counts(_times(jobs, out.sessions)),
            "unschedulable_tasks": _counts(_times(tasks, out.sessions)),
        }
        return out

    def job_share_series(
        self, since: datetime, until: datetime, *, resolution: int | None = None
    ) -> dict[str, Any]:
        """Per queue the running jobs' DRF share (count, mean, max) and the top jobs now."""
        step, grid = self._grid(since, until, resolution)
        shares = promql.job_share_by_queue()
        queues: dict[str, dict[str, list[float | None]]] = {}
        for key, aggregate in (("jobs", "count"), ("mean", "avg"), ("max", "max")):
            expr = f"{aggregate} by (queue) ({shares})"
            for labels, points in self._range(expr, grid, step):
                queues.setdefault(labels.get("queue", ""), {})[key] = _aligned(points, grid)
        for series in queues.values():
            for key in ("jobs", "mean", "max"):
                series.setdefault(key, [None] * len(grid))
        top = self._top(shares, grid[-1] if grid else until.timestamp())
        return {"resolution": step, "times": _iso(grid), "queues": queues, "top": top}

    # --- helpers --------------------------------------------------------------------------
    def _grid(
        self, since: datetime, until: datetime, resolution: int | None
    ) -> tuple[int, list[float]]:
        """Return the step and the times Prometheus evaluates at (multiples of the step)."""
        span = max((until - since).total_seconds(), 0.0)
        step = resolution or promql.choose_step(
            span, max_points=self.max_points, scrape_interval=self.scrape_interval
        )
        first = math.ceil(since.timestamp() / step) * step
        last = math.floor(until.timestamp() / step) * step
        count = int((last - first) // step) + 1 if last >= first else 0
        return step, [float(first + i * step) for i in range(count)]

    def _range(self, expr: str, grid: list[float], step: int) -> list[Series]:
        if not grid:
            return []
        return self.client.query_range(expr, grid[0], grid[-1], step)

    def _single(self, expr: str, grid: list[float], step: int) -> list[float | None]:
        series = self._range(expr, grid, step)
        return _aligned(series[0][1], grid) if series else [None] * len(grid)

    def _by(
        self, expr: str, label: str, grid: list[float], step: int
    ) -> dict[str, list[float | None]]:
        return {
            labels.get(label, ""): _aligned(points, grid)
            for labels, points in self._range(expr, grid, step)
        }

    def _histograms(
        self, queries: dict[str, str], grid: list[float], step: int
    ) -> list[dict[str, Any] | None]:
        """Return per step the sessions' bucket counts, in the history's layout
        (``monitoring.latency``), None for a step without sessions."""
        e2e = self._buckets(queries["e2e_buckets"], "", "e2e", grid, step).get("", [])
        parts = {
            "actions": self._buckets(queries["action_buckets"], "action", "actions", grid, step),
            "plugins": self._buckets(queries["plugin_buckets"], "plugin", "plugins", grid, step),
        }
        out: list[dict[str, Any] | None] = []
        for i in range(len(grid)):
            counts = e2e[i] if i < len(e2e) else {}
            if not counts:
                out.append(None)
                continue
            hist: dict[str, Any] = {"e2e": counts}
            for part, by_name in parts.items():
                hist[part] = {name: steps[i] for name, steps in by_name.items() if steps[i]}
            out.append(hist)
        return out

    def _buckets(
        self, expr: str, label: str, component: str, grid: list[float], step: int
    ) -> dict[str, list[dict[str, int]]]:
        """Return per ``label`` value, per step, the count in each bucket (by bucket number).

        Prometheus' buckets are cumulative (``le``); a bucket's own count is its ``le`` less
        the one below. ``le`` values are the bounds ``/metrics`` exports, so each maps to the
        history's bucket number; rate extrapolation can dip below zero, which counts as none.
        """
        cumulative: dict[str, dict[int, list[float | None]]] = {}
        for labels, points in self._range(expr, grid, step):
            try:
                bound = float(labels.get("le", ""))
            except ValueError:
                continue
            bucket = latency.bucket_of(component, bound)
            cumulative.setdefault(labels.get(label, "") if label else "", {})[bucket] = _aligned(
                points, grid
            )
        out: dict[str, list[dict[str, int]]] = {}
        for name, by_bucket in cumulative.items():
            steps: list[dict[str, int]] = []
            for i in range(len(grid)):
                counts: dict[str, int] = {}
                below = 0.0
                for bucket in sorted(by_bucket):
                    value = by_bucket[bucket][i]
                    if value is None:
                        continue
                    own = round(value - below)
                    below = max(below, value)
                    if own > 0:
                        counts[str(bucket)] = own
                steps.append(counts)
            out[name] = steps
        return out

    def _top(self, shares: str, at: float) -> list[list[Any]]:
        rows = self.client.query(f"topk({self.top}, {shares})", at)
        rows.sort(key=lambda row: -row[1])
        return [
            [f"{labels.get('job_ns', '')}/{labels.get('job_id', '')}", labels.get("queue", ""),
             round(value, 6), ""]  # Volcano exports no dominant resource
            for labels, value in rows
        ]  # fmt: skip


def _queue_fields() -> tuple[str, ...]:
    return (*history.QUEUE_FIELDS, "pods_pending", "pods_running")


def _aligned(points: dict[float, float], grid: list[float], factor: float = 1.0) -> list[Any]:
    """Return one value per grid time (``None`` where Prometheus had none, or NaN)."""
    out: list[float | None] = []
    for at in grid:
        value = points.get(at)
        out.append(None if value is None or math.isnan(value) else value * factor)
    return out


def _iso(grid: Iterable[float]) -> list[str]:
    return [datetime.fromtimestamp(t, tz=UTC).isoformat() for t in grid]


def _or_zero(value: float | None) -> float:
    return 0.0 if value is None else round(value, 3)


def _counts(values: Iterable[float | None]) -> list[int]:
    return [round(v) if v is not None else 0 for v in values]


def _times(values: list[float | None], sessions: list[int]) -> list[float | None]:
    return [None if v is None else v * max(n, 1) for v, n in zip(values, sessions, strict=True)]
