"""Prometheus metrics with Volcano's names, types, labels and buckets, served at ``/metrics``.

Volcano's counterpart: ``pkg/scheduler/metrics`` (and the controller's ``pkg/controllers/metrics``).
The list, buckets included, is ``shared/docs/volcano-reference.md``.

Why not prometheus_client's default registry: the scheduler may run in another process (the
Celery worker) or on another host than the web server that answers ``/metrics``, and
prometheus_client's multiprocess mode only shares files on one host. So the figures live where
every process can read them:

* Session figures (latency histograms, preemption and eviction counters, unschedulable gauges,
  job shares) are kept as one small JSON state that the worker updates after each session and
  stores in Django's cache (Redis when ``REDIS_URL`` is set, the shared process memory in the
  embedded mode, where worker and web server are one process). Only the session leader writes it.
* Cluster figures (queue allocated / request / deserved / capacity, PodGroup counts per phase,
  job phase counters, retries) are read from the database at scrape time, so they are right
  whichever process wrote the rows.

Both are rendered on every scrape by ``metrics_text`` (exact Volcano names, see there).
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterable, Iterator
from typing import Any

from django.core.cache import cache
from django.http import HttpRequest, HttpResponse

from apis.histograms import HISTOGRAMS
from apis.prometheus_text import CONTENT_TYPE, Family, render
from queues.models import PodGroup
from scheduler.metrics_cluster import cluster_families
from scheduler.metrics_devices import device_families

__all__ = ["MetricsState", "forget_deleted_jobs", "load_state", "metrics_view", "save_state"]

STATE_KEY = "volcano:metrics:state"
COUNTERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "volcano_total_preemption_attempts": ("Total preemption attempts in the cluster till now", ()),
    "volcano_eviction_transactions_total": (
        "Total number of committed eviction transactions, by action", ("action",)),
    "volcano_schedule_attempts_total": ("Number of attempts to schedule pods, by result", ("result",)),
    "rest_client_requests_total": (
        "Number of HTTP requests, partitioned by status code, method, and host.",
        ("code", "method", "host", "kubernetes_name")),
}  # fmt: skip
GAUGES: dict[str, tuple[str, tuple[str, ...]]] = {
    "volcano_pod_preemption_victims": ("Number of selected preemption victims", ()),
    "volcano_unschedule_task_count": ("Number of tasks could not be scheduled", ("job_id",)),
    "volcano_unschedule_job_count": ("Number of jobs could not be scheduled", ()),
    "volcano_job_share": ("Share for one job", ("job_ns", "job_id")),
    "volcano_e2e_job_scheduling_duration": (
        "E2e job scheduling duration in milliseconds", ("job_name", "queue", "job_namespace")),
    "volcano_e2e_job_scheduling_start_time": (
        "E2e job scheduling start time", ("job_name", "queue", "job_namespace")),
    "volcano_e2e_job_scheduling_last_time": (
        "E2e job scheduling last time", ("job_name", "queue", "job_namespace")),
}  # fmt: skip
MAX_JOB_SERIES = 2000  # per-job gauges kept for the most recent jobs only
# The per-job gauges, and where their labels name the job's namespace and name (None: the
# label set has no namespace; Volcano's gang plugin labels unschedulable tasks by name only).
JOB_GAUGES: dict[str, tuple[int | None, int]] = {
    "volcano_e2e_job_scheduling_duration": (2, 0),
    "volcano_e2e_job_scheduling_start_time": (2, 0),
    "volcano_e2e_job_scheduling_last_time": (2, 0),
    "volcano_job_share": (0, 1),
    "volcano_unschedule_task_count": (None, 0),
}


class MetricsState:
    """The session figures as plain data (JSON in the shared cache)."""

    def __init__(self, data: dict[str, Any] | None = None) -> None:
        self.data: dict[str, Any] = data or {"h": {}, "c": {}, "g": {}}

    def observe(self, name: str, labels: tuple[str, ...], values: Iterable[float]) -> None:
        """Add observations to histogram ``name`` under ``labels``."""
        buckets = HISTOGRAMS[name][2]
        series = self.data["h"].setdefault(name, {})
        key = json.dumps(labels)
        entry = series.setdefault(key, {"b": [0] * len(buckets), "sum": 0.0, "count": 0})
        for value in values:
            index = bisect.bisect_left(buckets, value)
            if index < len(buckets):
                entry["b"][index] += 1
            entry["sum"] += value
            entry["count"] += 1

    def inc(self, name: str, labels: tuple[str, ...] = (), amount: float = 1.0) -> None:
        """Add ``amount`` to counter ``name``."""
        series = self.data["c"].setdefault(name, {})
        key = json.dumps(labels)
        series[key] = series.get(key, 0.0) + amount

    def set_gauge(self, name: str, labels: tuple[str, ...], value: float) -> None:
        """Set gauge ``name`` under ``labels`` (it becomes the most recently set series)."""
        series = self.data["g"].setdefault(name, {})
        key = json.dumps(labels)
        series.pop(key, None)  # re-inserted last, so ``trim_gauge`` keeps the live ones
        series[key] = value

    def replace_gauge(self, name: str, values: dict[tuple[str, ...], float]) -> None:
        """Replace every series of gauge ``name`` (series no longer present disappear)."""
        self.data["g"][name] = {json.dumps(k): v for k, v in values.items()}

    def trim_gauge(self, name: str, keep: int = MAX_JOB_SERIES) -> None:
        """Keep only the ``keep`` most recently set series of gauge ``name``."""
        series = self.data["g"].get(name, {})
        if len(series) > keep:
            self.data["g"][name] = dict(list(series.items())[-keep:])

    def forget_jobs(self, present: set[tuple[str, str]]) -> None:
        """Drop every per-job series whose job is not in ``present`` ((namespace, name)).

        Volcano's cache calls ``DeleteJobMetrics`` when it forgets a deleted job: its
        duration, start and last times, unschedulable tasks and share disappear from
        ``/metrics`` rather than stay at their last value for ever.
        """
        names = {name for _ns, name in present}
        for gauge, (ns_at, name_at) in JOB_GAUGES.items():
            series = self.data["g"].get(gauge)
            if not series:
                continue
            kept = {}
            for key, value in series.items():
                labels = json.loads(key)
                if (labels[name_at] in names if ns_at is None
                        else (labels[ns_at], labels[name_at]) in present):  # fmt: skip
                    kept[key] = value
            self.data["g"][gauge] = kept

    def job_names(self) -> set[str]:
        """Return the job names the per-job series name."""
        out: set[str] = set()
        for gauge, (_ns_at, name_at) in JOB_GAUGES.items():
            out.update(json.loads(key)[name_at] for key in self.data["g"].get(gauge, {}))
        return out

    # --- exposition -----------------------------------------------------------------------
    def families(self) -> Iterator[Family]:
        """Yield the metric families (histogram buckets cumulative, as Prometheus wants)."""
        for name, (help_text, label_names, buckets) in HISTOGRAMS.items():
            family = Family(name, "histogram", help_text)
            for key, entry in self.data["h"].get(name, {}).items():
                running, pairs = 0, []
                for bound, n in zip(buckets, entry["b"], strict=True):
                    running += n
                    pairs.append((bound, running))
                labels = dict(zip(label_names, json.loads(key), strict=True))
                family.add_histogram(labels, pairs, entry["count"], entry["sum"])
            yield family
        for kind, table in (("counter", COUNTERS), ("gauge", GAUGES)):
            store = self.data["c" if kind == "counter" else "g"]
            for name, (help_text, label_names) in table.items():
                family = Family(name, kind, help_text)
                for key, value in store.get(name, {}).items():
                    family.add(dict(zip(label_names, json.loads(key), strict=True)), value)
                yield family


def load_state() -> MetricsState:
    """Return the session figures the worker last stored (empty before the first session)."""
    return MetricsState(cache.get(STATE_KEY))


def save_state(state: MetricsState) -> None:
    """Store the session figures for every process to read (no expiry)."""
    cache.set(STATE_KEY, state.data, timeout=None)


def forget_deleted_jobs(state: MetricsState, known: set[tuple[str, str]] | None = None) -> None:
    """Drop the per-job series of jobs whose PodGroup is gone (Volcano's ``DeleteJobMetrics``).

    The scheduler's jobs are PodGroups: a job deleted through the API loses its PodGroup, and
    whichever process notices first (the next scrape, the next session) stops exporting it.
    Only the names the series carry are looked up, less those of ``known`` jobs (a session's
    snapshot: its PodGroups exist), so the cost follows the finished jobs' series kept.
    """
    present = set(known or ())
    names = state.job_names() - {name for _ns, name in present}
    for chunk in _chunks(sorted(names), 500):
        present.update(PodGroup.objects.filter(name__in=chunk).values_list("namespace", "name"))
    state.forget_jobs(present)


def _chunks(items: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def metrics_view(request: HttpRequest) -> HttpResponse:
    """Serve every ``volcano_*`` series in the Prometheus text format (no login: scrapers).

    The series of jobs deleted since the last session are left out here (not saved: only
    the session leader writes the state), so a deleted job's series go at once.
    """
    state = load_state()
    forget_deleted_jobs(state)
    families = [*state.families(), *cluster_families(), *device_families()]
    return HttpResponse(render(families), content_type=CONTENT_TYPE)
