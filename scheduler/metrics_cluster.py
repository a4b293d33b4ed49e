"""Cluster figures for ``/metrics``, read from the database at scrape time.

Volcano's counterparts: ``pkg/scheduler/metrics/queue.go`` (set by the proportion and capacity
plugins) and the controller-manager's ``volcano_queue_pod_group_*_count`` and job phase counters.
Reading them from rows makes them right whichever process (web, embedded loop, Celery worker)
wrote the rows. ``deserved`` is what the sharing plugin (proportion or capacity) computed in the
last session (``Queue.share_status``); before any session, the queue's ``spec.deserved`` when
set (the capacity plugin's rule), else a weight-proportional water-filling of the Ready nodes'
allocatable capped by each queue's request (the proportion plugin's rule, per resource).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from django.db.models import Count, Min, Sum

from apis.histograms import exp_range
from apis.prometheus_text import Family
from core.models import Node, Pod
from flow.models import FlowPhase, JobFlow
from jobs.models import Job
from queues.models import PodGroup, Queue

__all__ = ["cluster_families", "water_fill"]

GPU = "nvidia.com/gpu"
DIMS = ("cpu", "memory", GPU)
_QUEUE_RESOURCES = ("allocated", "request", "deserved", "capacity", "real_capacity", "inqueue")
_HELP = {
    "allocated": "Allocated", "request": "Request", "deserved": "Deserved",
    "capacity": "Capacity", "real_capacity": "Real capacity", "inqueue": "Inqueue",
}  # fmt: skip


def water_fill(
    total: float, weights: dict[str, int], requests: dict[str, float]
) -> dict[str, float]:
    """Return each queue's share of ``total`` by weight, never above its request."""
    deserved = dict.fromkeys(weights, 0.0)
    active = {q for q in weights if requests.get(q, 0) > 0}
    remaining = float(total)
    while active and remaining > 1e-9:
        weight_sum = sum(weights[q] for q in active)
        given = 0.0
        for q in list(active):
            want = requests[q] - deserved[q]
            share = remaining * weights[q] / weight_sum
            take = min(share, want)
            deserved[q] += take
            given += take
            if deserved[q] >= requests[q] - 1e-9:
                active.discard(q)
        remaining -= given
        if given <= 1e-9:
            break
    return deserved


def _milli(values: dict[str, Any] | None) -> dict[str, float]:
    return {k: float(v) for k, v in (values or {}).items()}


def _queue_figures() -> tuple[list[dict[str, Any]], dict[str, dict[str, dict[str, float]]]]:
    queues: list[dict[str, Any]] = [
        dict(q)
        for q in Queue.objects.values(
            "name", "weight", "capability", "deserved", "allocated", "share_status"
        )
    ]
    totals: dict[str, float] = defaultdict(float)
    for alloc in Node.objects.filter(ready=True).values_list("allocatable", flat=True):
        for dim in DIMS:
            totals[dim] += float((alloc or {}).get(dim, 0))
    requests: dict[str, dict[str, float]] = defaultdict(dict)
    rows = (
        Pod.objects.filter(phase__in=("Pending", "Running"))
        .exclude(pod_group__phase="Completed")
        .values("pod_group__queue")
        .annotate(cpu=Sum("cpu_milli"), memory=Sum("memory_milli"), gpu=Sum("gpu_milli"))
    )
    for row in rows:
        name = row["pod_group__queue"] or "default"
        requests[name] = {
            "cpu": row["cpu"] or 0,
            "memory": row["memory"] or 0,
            GPU: row["gpu"] or 0,
        }
    inqueue: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for name, min_res in PodGroup.objects.filter(phase="Inqueue").values_list(
        "queue", "min_resources"
    ):
        for dim, value in (min_res or {}).items():
            inqueue[name][dim] += float(value)
    weights = {q["name"]: q["weight"] for q in queues}
    filled = {
        dim: water_fill(totals[dim], weights, {q: requests[q].get(dim, 0) for q in weights})
        for dim in DIMS
    }
    figures: dict[str, dict[str, dict[str, float]]] = {}
    for q in queues:
        name = q["name"]
        capability = _milli(q["capability"])
        explicit = _milli(q["deserved"])
        # What the sharing plugin computed in the last session, as Volcano's proportion and
        # capacity plugins export their own figure (capability caps included); before the
        # first session, spec.deserved or the weighted water-filling.
        computed = q["share_status"] or {}
        session = _milli(computed.get("deserved")) if computed.get("taking_part") else {}
        figures[name] = {
            "allocated": _milli(q["allocated"]),
            "request": requests.get(name, {}),
            "deserved": session or explicit or {dim: filled[dim][name] for dim in DIMS},
            "capacity": capability,
            "real_capacity": {
                dim: min(capability.get(dim, totals[dim]), totals[dim]) for dim in DIMS
            },
            "inqueue": dict(inqueue.get(name, {})),
        }
    return queues, figures


def _queue_families() -> Iterator[Family]:
    queues, figures = _queue_figures()
    for figure in _QUEUE_RESOURCES:
        label = _HELP[figure]
        cpu = Family(
            f"volcano_queue_{figure}_milli_cpu", "gauge", f"{label} CPU count for one queue"
        )
        memory = Family(
            f"volcano_queue_{figure}_memory_bytes", "gauge", f"{label} memory for one queue"
        )
        scalar = Family(f"volcano_queue_{figure}_scalar_resources", "gauge",
                        f"{label} scalar resources for one queue")  # fmt: skip
        for name, values in figures.items():
            cpu.add({"queue_name": name}, values[figure].get("cpu", 0.0))
            memory.add({"queue_name": name}, values[figure].get("memory", 0.0) / 1000)
            for dim, value in sorted(values[figure].items()):
                if dim not in ("cpu", "memory", "pods"):
                    scalar.add({"queue_name": name, "resource": dim}, value / 1000)
        yield from (cpu, memory, scalar)
    share = Family("volcano_queue_share", "gauge", "Share for one queue")
    weight = Family("volcano_queue_weight", "gauge", "Weight for one queue")
    overused = Family("volcano_queue_overused", "gauge", "If one queue is overused")
    for q in queues:
        name, values = q["name"], figures[q["name"]]
        deserved, allocated = values["deserved"], values["allocated"]
        ratios = [allocated.get(d, 0.0) / v for d, v in deserved.items() if v > 0]
        share.add({"queue_name": name}, max(ratios, default=0.0))
        weight.add({"queue_name": name}, q["weight"])
        is_over = bool(deserved) and all(
            deserved.get(d, 0.0) <= allocated.get(d, 0.0) for d in ("cpu", "memory")
        )
        overused.add({"queue_name": name}, 1.0 if is_over else 0.0)
    yield from (share, weight, overused)


def _controller_families() -> Iterator[Family]:
    counts: dict[str, dict[str, int]] = defaultdict(dict)
    for queue, phase, n in PodGroup.objects.values_list("queue", "phase").annotate(n=Count("pk")):
        counts[queue][phase] = n
    names = set(Queue.objects.values_list("name", flat=True)) | set(counts)
    for phase in ("Inqueue", "Pending", "Running", "Unknown", "Completed"):
        family = Family(f"volcano_queue_pod_group_{phase.lower()}_count", "gauge",
                        f"The number of {phase} PodGroup in this queue")  # fmt: skip
        for name in sorted(names):
            family.add({"queue_name": name}, counts[name].get(phase, 0))
        yield family
    completed = Family(
        "volcano_job_completed_phase_count", "counter", "Number of job completed phase"
    )
    failed = Family("volcano_job_failed_phase_count", "counter", "Number of job failed phase")
    retries = Family("volcano_job_retry_counts", "counter", "Number of retry counts for one job")
    latency = Family("volcano_controller_job_to_pod_creation_latency_milliseconds", "histogram",
                     "Latency from job creation to its first pod's creation in milliseconds")  # fmt: skip
    buckets = exp_range(50, 60000, 30)
    observed = [0] * len(buckets)
    total, n = 0.0, 0
    rows = Job.objects.annotate(first_pod=Min("pods__created_at")).values_list(
        "name", "queue", "phase", "retry_count", "created_at", "first_pod"
    )
    for name, queue, phase, retry_count, created, first_pod in rows:
        if phase == "Completed":
            completed.add({"job_name": name, "queue_name": queue}, 1)
        elif phase == "Failed":
            failed.add({"job_name": name, "queue_name": queue}, 1)
        if retry_count:
            retries.add({"job_id": name}, retry_count)
        if first_pod is not None and created is not None:
            ms = max((first_pod - created).total_seconds() * 1000, 0.0)
            total, n = total + ms, n + 1
            for i, bound in enumerate(buckets):
                if ms <= bound:
                    observed[i] += 1
    latency.add_histogram({}, list(zip(buckets, observed, strict=True)), n, total)
    yield from (completed, failed, retries, latency)
    yield from _jobflow_families()


def _jobflow_families() -> Iterator[Family]:
    """Volcano's JobFlow counters: the flows that succeeded and failed, by namespace."""
    succeed = Family("volcano_jobflow_succeed_phase_count", "counter",
                     "Number of jobflow succeed phase")  # fmt: skip
    failed = Family("volcano_jobflow_failed_phase_count", "counter",
                    "Number of jobflow failed phase")  # fmt: skip
    counts = JobFlow.objects.filter(phase__in=(FlowPhase.SUCCEED, FlowPhase.FAILED))
    for namespace, phase, n in counts.values_list("namespace", "phase").annotate(n=Count("pk")):
        family = succeed if phase == FlowPhase.SUCCEED else failed
        family.add({"jobflow_namespace": namespace}, n)
    yield from (succeed, failed)


def cluster_families() -> Iterator[Family]:
    """Yield the queue and controller metric families computed from the rows."""
    yield from _queue_families()
    yield from _controller_families()
