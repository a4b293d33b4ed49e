"""The PromQL the Metrics pages ask a Prometheus, written against Volcano's ``volcano_*`` series.

Pure: strings and numbers only, so the queries and the step choice are tested without a server.
Each query is what a Volcano user would type in Grafana for the same chart, but for the session
counters: those are read as running totals and differenced per step (``session_counters``), so
counts are whole numbers that add up the same at every zoom level, as the history's do.

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
    "SCRAPED",
    "STEPS",
    "choose_step",
    "job_share_by_queue",
    "queue_query",
    "resource_scale",
    "session_counters",
    "session_gauges",
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
    # pods outside any Volcano job carry an empty queue label: not a queue
    by_queue = f'queue="{_quote(queue)}"' if queue else 'queue!=""'
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


SCRAPED = "count(volcano_queue_weight)"  # present whenever /metrics was scraped (every queue)


def session_counters() -> dict[str, str]:
    """Return the PromQL of each session counter, by the ``SessionSeries`` part it fills.

    Each is a counter's running total (summed over the series that do not matter to the
    chart), not a rate: the source reads it at the edges of each step and takes the
    differences, so a step's count is the integer number of sessions, binds or evictions that
    happened in it, the history's bucket sum. ``rate(...) * step`` rounded point by point
    instead drops a count whose samples straddle two windows, counts one twice when windows
    overlap, and extrapolates the rest (one eviction read 0, 1 or 2 by zoom level). A step's
    mean latency is its ``_sum`` difference over its ``_count`` difference.
    """
    e2e = "volcano_e2e_scheduling_latency_milliseconds"
    action = "volcano_action_scheduling_latency_milliseconds"
    plugin = "volcano_plugin_scheduling_latency_milliseconds"
    return {
        "sessions": f"sum({e2e}_count)",
        "e2e_sum": f"sum({e2e}_sum)",
        "e2e_buckets": f"sum by (le) ({e2e}_bucket)",
        "action_count": f"sum by (action) ({action}_count)",
        "action_sum": f"sum by (action) ({action}_sum)",
        "action_buckets": f"sum by (action, le) ({action}_bucket)",
        # open and close apart: a session's plugin time is the two means added, as the history
        "plugin_count": f"sum by (plugin, OnSession) ({plugin}_count)",
        "plugin_sum": f"sum by (plugin, OnSession) ({plugin}_sum)",
        "plugin_buckets": f"sum by (plugin, le) ({plugin}_bucket)",
        "binds": 'sum(volcano_schedule_attempts_total{result="scheduled"})',
        # Volcano's counter is of committed statements that evicted, by action (preempt,
        # reclaim, gangpreempt, gangreclaim; never shuffle): pods only where each evicts one.
        "evictions_by_action": "sum by (action) (volcano_eviction_transactions_total)",
    }


def session_gauges(window: int, resolution: int = 15) -> dict[str, str]:
    """Return the PromQL of the unschedulable jobs and tasks gauges' peak over ``window``
    seconds (the step), read every ``resolution`` seconds (the scrape interval): each session
    sets them to everything still waiting, so the most that waited at once is the step's
    figure, as the history's peak over its sessions. The tasks gauge is per job: summed first,
    then its peak taken, so two jobs that waited at different times are not added."""
    return {
        "unschedulable_jobs": f"max_over_time(sum(volcano_unschedule_job_count)[{window}s:{resolution}s])",
        "unschedulable_tasks": (
            f"max_over_time(sum(volcano_unschedule_task_count)[{window}s:{resolution}s])"
        ),
    }


def job_share_by_queue() -> str:
    """Return every job's DRF share with its queue.

    ``volcano_job_share`` names the job but not its queue; the job's start time (set for
    every job holding resources, as Volcano's cache sets it for each PodGroup) and its
    scheduling duration carry both, so the queue is joined from them. A share whose job has
    neither is left out rather than shown under an empty queue name.
    """
    named = '{queue!=""}'
    queues = (
        "label_replace(label_replace(max by (job_namespace, job_name, queue) "
        f"(volcano_e2e_job_scheduling_start_time{named}"
        f" or volcano_e2e_job_scheduling_duration{named}), "
        '"job_ns", "$1", "job_namespace", "(.*)"), "job_id", "$1", "job_name", "(.*)")'
    )
    return f"volcano_job_share * on(job_ns, job_id) group_left(queue) ({queues} * 0 + 1)"
