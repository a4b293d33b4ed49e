"""The API server's own request metrics, as kube-apiserver names them, at ``/metrics/apiserver``.

Why: Volcano's benchmark dashboard plots ``apiserver_request_total`` and
``apiserver_request_duration_seconds`` by verb and resource (scrape job
``kubernetes-apiservers``). The console is the API server Volcano's clients talk to, so it
counts its own ``/api`` and ``/apis`` requests the way kube-apiserver does: verb in
Kubernetes' words (``LIST``, ``WATCH``, ``GET``, ``POST``, ``PUT``, ``PATCH``, ``DELETE``,
``DELETECOLLECTION``), ``group``, ``version``, ``resource``, ``subresource``, ``scope``
(``resource``, ``namespace``, ``cluster``), ``component="apiserver"``, and the code.
Durations use kube-apiserver's buckets (seconds). As in Kubernetes, each server process
counts its own requests (in memory); Prometheus sums the instances.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from django.http import HttpRequest, HttpResponse

from apis.prometheus_text import CONTENT_TYPE, Family, render

__all__ = ["BUCKETS", "RequestKey", "apiserver_metrics_view", "parse_request", "request_metrics"]

BUCKETS = (0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 5.0,
           6.0, 8.0, 10.0, 15.0, 20.0, 30.0, 45.0, 60.0)  # fmt: skip
LABELS = ("verb", "group", "version", "resource", "subresource", "scope", "component", "dry_run")


@dataclass(frozen=True, slots=True)
class RequestKey:
    """What kube-apiserver labels a request with (the code apart)."""

    verb: str
    group: str
    version: str
    resource: str
    subresource: str
    scope: str

    def labels(self) -> dict[str, str]:
        """Return the label set, ``component`` and ``dry_run`` included."""
        return {"verb": self.verb, "group": self.group, "version": self.version,
                "resource": self.resource, "subresource": self.subresource, "scope": self.scope,
                "component": "apiserver", "dry_run": ""}  # fmt: skip


def parse_request(method: str, path: str, *, watch: bool = False) -> RequestKey | None:
    """Return the labels of an API request, or ``None`` for a path outside ``/api``/``/apis``."""
    parts = [p for p in path.split("/") if p]
    if not parts or parts[0] not in ("api", "apis"):
        return None
    if parts[0] == "api":
        group, version, rest = "", parts[1] if len(parts) > 1 else "", parts[2:]
    else:
        group = parts[1] if len(parts) > 1 else ""
        version = parts[2] if len(parts) > 2 else ""
        rest = parts[3:]
    if len(rest) >= 3 and rest[0] == "namespaces":
        resource, name, sub, scope = rest[2], _at(rest, 3), _at(rest, 4), "namespace"
    else:
        resource, name, sub, scope = _at(rest, 0), _at(rest, 1), _at(rest, 2), "cluster"
    if name:
        scope = "resource"
    return RequestKey(_verb(method, named=bool(name), watch=watch), group, version, resource,
                      sub, scope)  # fmt: skip


def _at(parts: list[str], index: int) -> str:
    return parts[index] if len(parts) > index else ""


def _verb(method: str, *, named: bool, watch: bool) -> str:
    if method == "GET":
        return "WATCH" if watch else ("GET" if named else "LIST")
    if method == "DELETE" and not named:
        return "DELETECOLLECTION"
    return method


@dataclass(slots=True)
class _Store:
    """Counts and duration histograms, guarded by a lock (requests run on many threads)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    totals: dict[tuple[RequestKey, str], int] = field(default_factory=dict)
    durations: dict[RequestKey, list[float]] = field(default_factory=dict)  # buckets, sum, n

    def add(self, key: RequestKey, code: int, seconds: float) -> None:
        with self.lock:
            count_key = (key, str(code))
            self.totals[count_key] = self.totals.get(count_key, 0) + 1
            entry = self.durations.setdefault(key, [0.0] * (len(BUCKETS) + 2))
            for i, bound in enumerate(BUCKETS):
                if seconds <= bound:
                    entry[i] += 1
            entry[-2] += seconds
            entry[-1] += 1

    def families(self) -> list[Family]:
        total = Family("apiserver_request_total", "counter",
                       "Counter of apiserver requests broken out for each verb, dry run value, "
                       "group, version, resource, scope, component, and HTTP response code.")  # fmt: skip
        duration = Family("apiserver_request_duration_seconds", "histogram",
                          "Response latency distribution in seconds for each verb, dry run "
                          "value, group, version, resource, subresource, scope and component.")  # fmt: skip
        with self.lock:
            for (key, code), n in sorted(self.totals.items(), key=lambda kv: repr(kv[0])):
                total.add({**key.labels(), "code": code}, n)
            for key, entry in sorted(self.durations.items(), key=lambda kv: repr(kv[0])):
                pairs = [(b, int(n)) for b, n in zip(BUCKETS, entry[: len(BUCKETS)], strict=True)]
                duration.add_histogram(key.labels(), pairs, int(entry[-1]), entry[-2])
        return [total, duration]


_STORE = _Store()


def request_metrics(
    get_response: Callable[[HttpRequest], HttpResponse],
) -> Callable[..., HttpResponse]:
    """Middleware: count and time every ``/api`` and ``/apis`` request."""

    def middleware(request: HttpRequest) -> HttpResponse:
        watch = request.GET.get("watch", "") in ("1", "true")
        key = parse_request(request.method or "GET", request.path, watch=watch)
        started = time.perf_counter()
        response = get_response(request)
        if key is not None:
            _STORE.add(key, response.status_code, time.perf_counter() - started)
        return response

    return middleware


def apiserver_metrics_view(request: HttpRequest) -> HttpResponse:
    """Serve this process' API request metrics in the Prometheus text format (no login)."""
    return HttpResponse(render(_STORE.families()), content_type=CONTENT_TYPE)
