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

from django.utils.translation import gettext

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
        self.scrape_interval = max(int(scrape_interval), 1)
        self.max_points = max_points
        self.top = top

    @property
    def label(self) -> str:
        """What the page says it shows: this Prometheus, by its address."""
        return gettext("Prometheus at %(url)s") % {"url": self.client.url}

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
                if not name:  # a pod outside any queue, say: not a queue of the charts
                    continue
                per_queue.setdefault(name, {})[key] = _aligned(points, grid, factor)
        for name in sorted(per_queue):
            series = per_queue[name]
            out.queues[name] = {k: series.get(k, [None] * len(grid)) for k in fields}
        return out

    def session_series(
        self, since: datetime, until: datetime, *, resolution: int | None = None
    ) -> SessionSeries:
        """The sessions' latencies (ms) and counts per step, as the history buckets them.

        A step's point stands for the sessions from its time to the next step's (the history
        keys a bucket by its start too); its counts are the counters' differences between the
        two (``_Edges``), whole numbers whatever the zoom level. A step without sessions
        has no latency (``None``: a gap in the charts, not 0 ms).
        """
        step, grid = self._grid(since, until, resolution)
        out = SessionSeries(resolution=step, times=_iso(grid))
        if not grid:
            return out
        end = min(grid[-1] + step, until.timestamp())
        edges = _Edges(self.client, grid, step, end, self.scrape_interval)
        counters = promql.session_counters()
        sessions = edges.single(counters["sessions"])
        out.sessions = [round(n) for n in sessions]
        out.e2e_ms = _means(edges.single(counters["e2e_sum"]), sessions)
        out.action_ms = _means_by(
            edges.by(counters["action_sum"], ("action",)),
            edges.by(counters["action_count"], ("action",)),
        )
        out.plugin_ms = _plugin_means(
            edges.by(counters["plugin_sum"], ("plugin", "OnSession")),
            edges.by(counters["plugin_count"], ("plugin", "OnSession")),
            len(grid),
        )
        out.histograms = self._histograms(edges, counters, len(grid))
        out.e2e_max_ms = [
            latency.quantile(0.99, "e2e", h["e2e"]) if h is not None else None
            for h in out.histograms
        ]
        by_action = edges.by(counters["evictions_by_action"], ("action",))
        out.evictions_by_action = {k[0]: [round(v) for v in vs] for k, vs in by_action.items()}
        evictions = [sum(c) for c in zip(*out.evictions_by_action.values(), strict=True)]
        gauges = {
            key: edges.mean(expr)
            for key, expr in promql.session_gauges(step, self.scrape_interval).items()
        }
        out.counts = {
            "binds": [round(v) for v in edges.single(counters["binds"])],
            "evictions": evictions or [0] * len(grid),
            "unschedulable_jobs": _counts(gauges["unschedulable_jobs"]),
            "unschedulable_tasks": _counts(gauges["unschedulable_tasks"]),
        }
        return out

    def job_share_series(
        self, since: datetime, until: datetime, *, resolution: int | None = None
    ) -> dict[str, Any]:
        """Per queue the running jobs' DRF share (count, mean, max), the top jobs now, and
        per job among the top ones its share over the range (``history.job_share_series``'s
        ``jobs``: ``None`` where it was not among the top ``top``)."""
        step, grid = self._grid(since, until, resolution)
        shares = promql.job_share_by_queue()
        queues: dict[str, dict[str, list[float | None]]] = {}
        for key, aggregate in (("jobs", "count"), ("mean", "avg"), ("max", "max")):
            expr = f"{aggregate} by (queue) ({shares})"
            for labels, points in self._range(expr, grid, step):
                if labels.get("queue"):
                    queues.setdefault(labels["queue"], {})[key] = _aligned(points, grid)
        for series in queues.values():
            for key in ("jobs", "mean", "max"):
                series.setdefault(key, [None] * len(grid))
        top = self._top(shares, grid[-1] if grid else until.timestamp())
        jobs = self._job_series(shares, grid, step)
        return {"resolution": step, "times": _iso(grid), "queues": queues, "top": top,
                "jobs": jobs}  # fmt: skip

    def _job_series(self, shares: str, grid: list[float], step: int) -> dict[str, Any]:
        """Return the share over the range of the jobs among the top ``top`` at some step:
        those of the latest step first, then the highest peaks, ``top`` at most."""
        found: dict[str, dict[str, Any]] = {}
        for labels, points in self._range(f"topk({self.top}, {shares})", grid, step):
            uid = f"{labels.get('job_ns', '')}/{labels.get('job_id', '')}"
            found[uid] = {"queue": labels.get("queue", ""), "dominant": "",
                          "share": _aligned(points, grid)}  # fmt: skip

        def rank(uid: str) -> tuple[float, float]:
            values = [v for v in found[uid]["share"] if v is not None]
            latest = found[uid]["share"][-1]
            return (-(latest if latest is not None else -1.0), -max(values, default=0.0))

        return {uid: found[uid] for uid in sorted(found, key=rank)[: self.top]}

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

    def _histograms(
        self, edges: _Edges, counters: dict[str, str], steps: int
    ) -> list[dict[str, Any] | None]:
        """Return per step its sessions per latency bucket, in the history's layout
        (``monitoring.latency``): empty counts for a step without sessions."""
        e2e = _own_buckets(edges.by(counters["e2e_buckets"], ("le",)), "e2e", steps)
        parts = {
            "actions": _own_buckets(
                edges.by(counters["action_buckets"], ("action", "le")), "actions", steps
            ),
            "plugins": _own_buckets(
                edges.by(counters["plugin_buckets"], ("plugin", "le")), "plugins", steps
            ),
        }
        out: list[dict[str, Any] | None] = []
        for i in range(steps):
            hist: dict[str, Any] = {"e2e": e2e.get("", [{}] * steps)[i]}
            for part, by_name in parts.items():
                hist[part] = {name: counts[i] for name, counts in by_name.items() if counts[i]}
            out.append(hist)
        return out

    def _top(self, shares: str, at: float) -> list[list[Any]]:
        rows = self.client.query(f"topk({self.top}, {shares})", at)
        rows.sort(key=lambda row: -row[1])
        return [
            [f"{labels.get('job_ns', '')}/{labels.get('job_id', '')}", labels.get("queue", ""),
             round(value, 6), ""]  # Volcano exports no dominant resource
            for labels, value in rows
        ]  # fmt: skip


Key = tuple[str, ...]  # a series' values of the labels asked for


class _Edges:
    """Counters and gauges read at the edges of each step: its start and the next one's.

    The grid's times come from one ``query_range``; the last step ends at ``end`` (the next
    step's time, or the range's end when that is sooner: the step still filling, as the
    history's last bucket), read with one instant query. ``scraped`` says at which edges
    Prometheus had scraped ``/metrics`` at all: a counter missing at an edge where the scrape
    happened did not exist yet, so it counts from 0 (Volcano's counters appear at their
    first increment: the first eviction ever is a new series whose first sample is 1).
    """

    def __init__(
        self, client: PrometheusClient, grid: list[float], step: int, end: float, scrape: int
    ) -> None:
        self.client = client
        self.grid = grid
        self.step = step
        self.end = end
        self.scrape = scrape
        scraped = self.by(promql.SCRAPED, (), raw=True).get((), [])
        self.scraped = [v is not None for v in scraped] or [False] * (len(grid) + 1)

    def by(self, expr: str, labels: tuple[str, ...], *, raw: bool = False) -> dict[Key, list[Any]]:
        """Return per label values the increase in each step (``raw``: the values at the
        ``len(grid) + 1`` edges, ``None`` where missing)."""
        at_edges: dict[Key, list[float | None]] = {}
        count = len(self.grid) + 1
        for found, points in self.client.query_range(expr, self.grid[0], self.grid[-1], self.step):
            key = tuple(found.get(name, "") for name in labels)
            at_edges.setdefault(key, [None] * count)[:-1] = _aligned(points, self.grid)
        for found, value in self.client.query(expr, self.end):
            key = tuple(found.get(name, "") for name in labels)
            at_edges.setdefault(key, [None] * count)[-1] = None if math.isnan(value) else value
        if raw:
            return at_edges
        out = {key: _increases(values, self.scraped) for key, values in at_edges.items()}
        for key, values in at_edges.items():
            for i in range(len(self.grid)):
                if values[i] is None and values[i + 1] is not None and not self.scraped[i]:
                    out[key][i] = self._first_scrapes(expr, labels, i).get(key, 0.0)
        return out

    def _first_scrapes(self, expr: str, labels: tuple[str, ...], i: int) -> dict[Key, float]:
        """Return per series what it counted in step ``i`` since Prometheus' first scrape of
        ``/metrics`` in it (the step began before that scrape: Prometheus had just started).

        Read at the scrape interval over the step: a series missing at the first scrape was
        born after it, from 0, so all of its value counts; one already there counts from its
        value then (what came before is not known).
        """
        edges = [*self.grid, self.end]
        start, stop = edges[i], edges[i + 1]
        beats = self.client.query_range(promql.SCRAPED, start, stop, self.scrape)
        times = sorted(beats[0][1]) if beats else []
        if not times:
            return {}
        out: dict[Key, float] = {}
        for found, points in self.client.query_range(expr, times[0], stop, self.scrape):
            if not points:
                continue
            key = tuple(found.get(name, "") for name in labels)
            first = points.get(times[0])
            last = points[max(points)]
            out[key] = last if first is None or last < first else last - first
        return out

    def single(self, expr: str) -> list[float]:
        """Return the increase in each step of a counter without labels (0 where none)."""
        return self.by(expr, ()).get((), [0.0] * len(self.grid))

    def mean(self, expr: str) -> list[float | None]:
        """Return per step the value of ``expr`` (a ``*_over_time`` over one step) taken at the
        step's end, which is its figure over the step (the last, shorter step: its own)."""
        values: list[float | None] = [None] * len(self.grid)
        series = self.client.query_range(expr, self.grid[0], self.grid[-1], self.step)
        if series:
            ahead = _aligned(series[0][1], self.grid)
            values[:-1] = ahead[1:]
        window = math.floor(self.end - self.grid[-1])
        if window >= 1:
            last = expr.replace(f"[{self.step}s", f"[{window}s")  # a range or a subquery
            for _labels, value in self.client.query(last, self.end):
                values[-1] = None if math.isnan(value) else value
        return values


def _increases(values: list[float | None], scraped: list[bool]) -> list[float]:
    """Return a counter's increase in each step from its values at the steps' edges.

    A drop is a restart (the counter starts again from 0, as ``increase`` reads it); a value
    missing at a scraped edge is 0 (the series did not exist yet), at an edge never scraped
    it is unknown and the step counts nothing.
    """
    out: list[float] = []
    for i in range(len(values) - 1):
        before, after = values[i], values[i + 1]
        if after is None:
            out.append(0.0)
        elif before is None:
            out.append(after if i < len(scraped) and scraped[i] else 0.0)
        else:
            out.append(after if after < before else after - before)
    return out


def _means(sums: list[float], counts: list[float]) -> list[float | None]:
    """Return per step the mean (sum over count), ``None`` where nothing was counted."""
    return [round(s / n, 3) if n >= 0.5 else None for s, n in zip(sums, counts, strict=True)]


def _means_by(
    sums: dict[Key, list[float]], counts: dict[Key, list[float]]
) -> dict[str, list[float | None]]:
    zero = [0.0] * len(next(iter(counts.values()), []))
    return {key[0]: _means(sums.get(key, zero), steps) for key, steps in counts.items()}


def _plugin_means(
    sums: dict[Key, list[float]], counts: dict[Key, list[float]], steps: int
) -> dict[str, list[float | None]]:
    """Return per plugin per step its open and close means added (None: not run then)."""
    out: dict[str, list[float | None]] = {}
    for (plugin, hook), per_step in counts.items():
        means = _means(sums.get((plugin, hook), [0.0] * steps), per_step)
        total = out.setdefault(plugin, [None] * steps)
        for i, mean in enumerate(means):
            if mean is not None:
                total[i] = round((total[i] or 0.0) + mean, 3)
    return out


def _own_buckets(
    cumulative: dict[Key, list[float]], component: str, steps: int
) -> dict[str, list[dict[str, int]]]:
    """Return per name (the key less ``le``), per step, the sessions in each bucket.

    Prometheus' buckets are cumulative (``le``); a bucket's own count is its increase less
    the one below. ``le`` values are the bounds ``/metrics`` exports, so each maps to the
    history's bucket number.
    """
    by_name: dict[str, dict[int, list[float]]] = {}
    for key, increases in cumulative.items():
        try:
            bound = float(key[-1])
        except ValueError:
            continue
        name = key[0] if len(key) > 1 else ""
        by_name.setdefault(name, {})[latency.bucket_of(component, bound)] = increases
    out: dict[str, list[dict[str, int]]] = {}
    for name, buckets in by_name.items():
        per_step: list[dict[str, int]] = []
        for i in range(steps):
            counts: dict[str, int] = {}
            below = 0.0
            for bucket in sorted(buckets):
                value = buckets[bucket][i]
                own = round(value - below)
                below = max(below, value)
                if own > 0:
                    counts[str(bucket)] = own
            per_step.append(counts)
        out[name] = per_step
    return out


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


def _counts(values: Iterable[float | None]) -> list[int]:
    return [round(v) if v is not None else 0 for v in values]
