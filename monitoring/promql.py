"""The PromQL the Metrics pages ask a Prometheus, written against Volcano's ``volcano_*`` series.

Pure: strings and numbers only, so the queries and the step choice are tested without a server.
Each query is what a Volcano user would type in Grafana for the same chart; the only liberty is
the rate window, which follows Grafana's ``$__rate_interval`` (at least four scrape intervals, at
least one step plus one scrape) so a rate always spans enough samples.

Units: Volcano exports CPU in millicores, memory in bytes and scalar resources (GPUs) in units;
the built-in history keeps the engine's milli-units for all three, so ``resource_scale`` says
what to multiply a Prometheus value by to get the history's figure.

Where Volcano exports nothing for a field (a queue's guarantee, pipelined pods, evictions by
queue, a job's dominant resource) there is no query here: the source returns an empty series
rather than a figure made up under one of Volcano's names. Pods per queue come from the
kube-state-metrics series Volcano's own dashboards read (``kube_pod_volcano_container_status_running``
carries the queue; ``kube_pod_status_phase`` the phase), as our ``/metrics/kube-state-metrics``
serves them.
"""

from __future__ import annotations

import math

__all__ = [
    "PHASE_FIELDS",
    "STEPS",
    "choose_step",
    "job_share_by_queue",
    "queue_query",
    "rate_window",
    "resource_scale",
    "session_queries",
]

# Steps a range is read at (seconds): round figures, so consecutive reads line up.
STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400)
PHASE_FIELDS = {"pending": "pending", "inqueue": "inqueue", "running": "running"}


def choose_step(span_seconds: float, *, max_points: int = 720, scrape_interval: int = 1) -> int:
    """Return the step (seconds) to read ``span_seconds`` with: at most ``max_points`` points.

    Like ``monitoring.history.choose_resolution`` it picks the finest step that keeps the
    series short enough to draw, but never finer than the scrape interval (finer points would
    repeat the same sample).
    """
    wanted = max(span_seconds / max(max_points, 1), float(scrape_interval), 1.0)
    for step in STEPS:
        if step >= wanted:
            return step
    return math.ceil(wanted)


def rate_window(step: int, scrape_interval: int) -> str:
    """Return the range of ``rate``/``increase`` (Grafana's ``$__rate_interval``)."""
    return f"{max(step + scrape_interval, 4 * scrape_interval)}s"


def _metric_suffix(resource: str) -> tuple[str, str]:
    """Return the series suffix for ``resource`` and its extra label matcher."""
    if resource == "cpu":
        return "milli_cpu", ""
    if resource == "memory":
        return "memory_bytes", ""
    return "scalar_resources", f'resource="{_quote(resource)}"'


def resource_scale(resource: str) -> float:
    """Return the factor from Volcano's exported unit to the history's milli-units."""
    return 1.0 if resource == "cpu" else 1000.0


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _selector(matchers: list[str]) -> str:
    kept = [m for m in matchers if m]
    return "{" + ", ".join(kept) + "}" if kept else ""


def queue_query(field: str, resource: str, *, step: int, queue: str | None = None) -> str | None:
    """Return the PromQL for one queue field (one series per ``queue_name``), or ``None``
    when Volcano exports nothing for it."""
    only = f'queue_name="{_quote(queue)}"' if queue else ""
    suffix, matcher = _metric_suffix(resource)
    per_resource = _selector([only, matcher])
    if field in ("allocated", "deserved"):
        return f"volcano_queue_{field}_{suffix}{per_resource}"
    if field == "capability":
        # The effective capacity where the capacity plugin reports it, else the spec's.
        return (
            f"volcano_queue_real_capacity_{suffix}{per_resource}"
            f" or on(queue_name) volcano_queue_capacity_{suffix}{per_resource}"
        )
    plain = _selector([only])
    if field == "share":
        return f"volcano_queue_share{plain}"
    if field == "share_max":
        return f"max_over_time(volcano_queue_share{plain}[{step}s])"
    if field == "weight":
        return f"volcano_queue_weight{plain}"
    if field in PHASE_FIELDS:
        return f"volcano_queue_pod_group_{PHASE_FIELDS[field]}_count{plain}"
    by_queue = f'queue="{_quote(queue)}"' if queue else ""
    if field == "pods_running":
        running = _selector([by_queue])
        return (
            "label_replace(count by (queue) "
            f"(kube_pod_volcano_container_status_running{running} == 1), "
            '"queue_name", "$1", "queue", "(.*)")'
        )
    if field == "pods_pending":
        pods = _selector([by_queue])
        return (
            "label_replace(count by (queue) "
            f"(max by (namespace, pod, queue) (kube_pod_volcano_container_status_running{pods})"
            ' and on(namespace, pod) (kube_pod_status_phase{phase="Pending"} == 1)), '
            '"queue_name", "$1", "queue", "(.*)")'
        )
    return None  # guarantee: Volcano exports no series for it


def session_queries(*, step: int, scrape_interval: int) -> dict[str, str]:
    """Return the PromQL of each session series, by the ``SessionSeries`` part it fills.

    Means per step come from a histogram's ``_sum`` over ``_count``; the peak from its 99th
    percentile (a histogram keeps no maximum); counts per step are the rate times the step.
    """
    w = rate_window(step, scrape_interval)
    e2e = "volcano_e2e_scheduling_latency_milliseconds"
    action = "volcano_action_scheduling_latency_milliseconds"
    plugin = "volcano_plugin_scheduling_latency_milliseconds"
    return {
        "sessions": f"sum(rate({e2e}_count[{w}])) * {step}",
        "e2e_ms": f"sum(rate({e2e}_sum[{w}])) / sum(rate({e2e}_count[{w}]))",
        "e2e_max_ms": f"histogram_quantile(0.99, sum by (le) (rate({e2e}_bucket[{w}])))",
        "action_ms": (
            f"sum by (action) (rate({action}_sum[{w}]))"
            f" / sum by (action) (rate({action}_count[{w}]))"
        ),
        # open + close per session, as the history adds them
        "plugin_ms": f"sum by (plugin) (rate({plugin}_sum[{w}]) / rate({plugin}_count[{w}]))",
        # sessions per latency bucket in the step: what the history's roll-ups count, so the
        # charts read p50/p95/p99 from a distribution here too (plugins: open and close apart)
        "e2e_buckets": f"sum by (le) (rate({e2e}_bucket[{w}])) * {step}",
        "action_buckets": f"sum by (action, le) (rate({action}_bucket[{w}])) * {step}",
        "plugin_buckets": f"sum by (plugin, le) (rate({plugin}_bucket[{w}])) * {step}",
        "binds": f'sum(rate(volcano_schedule_attempts_total{{result="scheduled"}}[{w}])) * {step}',
        "evictions_by_action": (
            f"sum by (action) (rate(volcano_eviction_transactions_total[{w}])) * {step}"
        ),
        "unschedulable_jobs": f"sum(avg_over_time(volcano_unschedule_job_count[{step}s]))",
        "unschedulable_tasks": f"sum(avg_over_time(volcano_unschedule_task_count[{step}s]))",
    }


def job_share_by_queue() -> str:
    """Return every job's DRF share with its queue.

    ``volcano_job_share`` names the job but not its queue; ``volcano_e2e_job_scheduling_duration``
    carries both, so the queue is joined from it, and a job without that series keeps its share
    under no queue (``or on``) rather than vanishing.
    """
    queues = (
        "label_replace(label_replace(max by (job_namespace, job_name, queue) "
        '(volcano_e2e_job_scheduling_duration), "job_ns", "$1", "job_namespace", "(.*)"), '
        '"job_id", "$1", "job_name", "(.*)")'
    )
    return (
        f"(volcano_job_share * on(job_ns, job_id) group_left(queue) ({queues} * 0 + 1))"
        " or on(job_ns, job_id) volcano_job_share"
    )
