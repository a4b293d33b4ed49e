"""Queue status from the rows: PodGroup counts per phase and the resources allocated.

Volcano's counterpart: the queue controller's ``syncQueue`` (PodGroup counts) and the scheduler's
``UpdateQueueStatus`` (allocated). Both are aggregates the database computes in two GROUP BY
queries, so the figures are exact whatever wrote the rows; a queue row is only written when a
figure changed, so its resourceVersion does not churn every second.
"""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Count, F, Sum

from core.models import Pod
from kube.changes import record_rows
from queues.models import PodGroup, Queue

__all__ = ["queue_status_figures", "write_queue_status"]

_PHASE_FIELDS = {
    "Pending": "pending",
    "Inqueue": "inqueue",
    "Running": "running",
    "Completed": "completed",
    "Unknown": "unknown",
}


def queue_status_figures() -> dict[str, dict[str, object]]:
    """Return ``{queue: {pending, inqueue, running, completed, unknown, allocated}}``."""
    figures: dict[str, dict[str, object]] = defaultdict(
        lambda: {**dict.fromkeys(_PHASE_FIELDS.values(), 0), "allocated": {}}
    )
    for queue, phase, n in PodGroup.objects.values_list("queue", "phase").annotate(n=Count("pk")):
        figures[queue][_PHASE_FIELDS.get(phase, "unknown")] = n
    allocated = (
        Pod.objects.filter(node__isnull=False, phase__in=("Pending", "Running"))
        .values("pod_group__queue")
        .annotate(
            cpu=Sum("cpu_milli"), memory=Sum("memory_milli"), gpu=Sum("gpu_milli"), n=Count("pk")
        )
    )
    for row in allocated:
        queue = row["pod_group__queue"] or "default"
        amounts = {"cpu": row["cpu"], "memory": row["memory"], "nvidia.com/gpu": row["gpu"]}
        result = {k: int(v) for k, v in amounts.items() if v}
        result["pods"] = int(row["n"]) * 1000
        figures[queue]["allocated"] = result
    return figures


def write_queue_status() -> int:
    """Write every queue's status figures that changed; return how many queues were written."""
    figures = queue_status_figures()
    fields = [*_PHASE_FIELDS.values(), "allocated"]
    written = 0
    for row in Queue.objects.values("pk", "name", *fields):
        want = figures.get(row["name"]) or {
            **dict.fromkeys(_PHASE_FIELDS.values(), 0),
            "allocated": {},
        }
        if all(row[f] == want[f] for f in fields):
            continue
        written += Queue.objects.filter(pk=row["pk"]).update(
            **{f: want[f] for f in fields}, resource_version=F("resource_version") + 1
        )
        record_rows(Queue, [row["pk"]])  # watchers of queues see the new status
    return written
