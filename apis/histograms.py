"""Volcano's histograms: each one's name, help text, label names and bucket upper bounds.

Volcano's counterpart: the ``prometheus.HistogramOpts`` of ``pkg/scheduler/metrics`` (and of
client-go and the agent scheduler for the last three), buckets included, as listed in
``shared/docs/volcano-reference.md``. Two readers need the same bounds: the exporter
(``scheduler.metrics``, ``/metrics``) and the recorded history, which counts each session in
these buckets so that its roll-ups keep the distribution (``monitoring.latency``). So the
bounds are vocabulary, here, and each reader imports them.
"""

from __future__ import annotations

import math

__all__ = ["HISTOGRAMS", "exp_range"]


def exp_range(start: float, stop: float, count: int) -> list[float]:
    """Return Volcano's ExponentialBucketsRange(start, stop, count) upper bounds."""
    factor = math.pow(stop / start, 1 / (count - 1))
    return [start * factor**i for i in range(count)]


# name → (help, label names, buckets)
HISTOGRAMS: dict[str, tuple[str, tuple[str, ...], list[float]]] = {
    "volcano_e2e_scheduling_latency_milliseconds": (
        "E2e scheduling latency in milliseconds (scheduling algorithm + binding)", (),
        exp_range(1, 5000, 20)),
    "volcano_open_session_duration_milliseconds": (
        "Duration of opening a session (snapshot and plugins) in milliseconds", (),
        exp_range(1, 5000, 20)),
    "volcano_e2e_job_scheduling_latency_milliseconds": (
        "E2e job scheduling latency in milliseconds", (), exp_range(100, 120000, 30)),
    "volcano_plugin_scheduling_latency_milliseconds": (
        "Plugin scheduling latency in milliseconds", ("plugin", "OnSession"),
        exp_range(0.1, 100, 15)),
    "volcano_action_scheduling_latency_milliseconds": (
        "Action scheduling latency in milliseconds", ("action",), exp_range(1, 2000, 20)),
    "volcano_task_scheduling_latency_milliseconds": (
        "Task scheduling latency in milliseconds", ("stage",), exp_range(50, 60000, 30)),
    "volcano_scheduling_stage_duration_milliseconds": (
        "Scheduling stage duration in milliseconds", ("stage",), exp_range(0.1, 500, 20)),
    # The agent scheduler's (pkg/agentscheduler/metrics): our worker's cycle and snapshot read.
    "volcano_worker_scheduling_cycle_duration_milliseconds": (
        "Duration of a single scheduling cycle execution in agent worker.", (),
        [5.0 * 2**i for i in range(15)]),
    "volcano_update_snapshot_duration_milliseconds": (
        "Duration of updating the scheduling snapshot from cache in agent worker.", (),
        [5.0 * 2**i for i in range(15)]),
    # client-go's (k8s.io/client-go/tools/metrics), per component: see metrics_session step 6.
    "rest_client_request_duration_seconds": (
        "Request latency in seconds. Broken down by verb, and host.",
        ("verb", "host", "kubernetes_name"),
        [0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0]),
}  # fmt: skip
