"""One session's sample for the recorded history: plain figures from the snapshot, the decisions
and the drf plugin.

The scheduler owns the session, so it is the one that can read it: the engine's objects stay on
this side, and the history (``monitoring``) gets plain data through its after-session hook
(``kube.registry.SessionReport.sample``), in the layout ``monitoring/__init__.py`` describes
but for two things the history adds as it stores it: the layout's version and the sessions per
latency bucket. Pure (no Django, no clock) but for ``top_jobs``, which reads a setting: the
worker hands in what the session already computed. Queue figures are columns (one list per
field, one entry per queue, amounts per resource in the engine's milli-units), so a sample of
100 queues is a few lists, not 100 rows.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.conf import settings

from scheduler.engine.api.cluster_info import ClusterInfo
from scheduler.engine.api.resource import Resource
from scheduler.engine.api.types import PodGroupPhase, TaskStatus
from scheduler.engine.framework.decisions import Decisions
from scheduler.engine.framework.session import Session

__all__ = ["DrfSampler", "JobShares", "build_sample", "top_jobs"]

_PHASES = {
    PodGroupPhase.PENDING: "pending",
    PodGroupPhase.INQUEUE: "inqueue",
    PodGroupPhase.RUNNING: "running",
}


@dataclass(slots=True)
class JobShares:
    """Running jobs' DRF shares: the top N, and per queue: count, mean and max share."""

    top: list[list[Any]] = field(default_factory=list)  # [job, queue, share, dominant]
    queues: dict[str, list[float]] = field(default_factory=dict)  # queue -> [jobs, mean, max]


def top_jobs() -> int:
    """Return how many running jobs' DRF shares a sample keeps (``VOLCANO_HISTORY_TOP_JOBS``,
    default 50: the history's setting, read here where the shares are)."""
    value = getattr(settings, "VOLCANO_HISTORY_TOP_JOBS", None)
    if value is None or value == "":
        value = os.environ.get("VOLCANO_HISTORY_TOP_JOBS")
    return 50 if value is None or value == "" else int(value)


class DrfSampler:
    """A session observer that copies the drf plugin's job shares as the session closes.

    It reads the plugin's state and changes nothing, so the decisions are the same with or
    without it. A session without the drf plugin leaves ``shares`` empty.
    """

    def __init__(self, *, top: int = 50) -> None:
        self.top = top
        self.shares = JobShares()

    def __call__(self, ssn: Session, stage: str) -> None:
        """Read the shares at ``closing`` (after the last action)."""
        if stage != "closing":
            return
        drf: Any = ssn.plugins.get("drf")
        if drf is None:
            return
        uids = [uid for uid, attr in drf.jobs.items() if attr.share > 0]  # running: holds some
        if not uids:
            return
        values = np.fromiter((drf.jobs[u].share for u in uids), dtype=np.float64, count=len(uids))
        jobs = ssn.jobs
        queues: dict[str, list[float]] = {}
        for uid, share in zip(uids, values.tolist(), strict=True):
            job = jobs.get(uid)
            entry = queues.setdefault(job.queue if job else "", [0, 0.0, 0.0])
            entry[0] += 1
            entry[1] += share
            entry[2] = max(entry[2], share)
        for entry in queues.values():
            entry[1] = round(entry[1] / entry[0], 6)
            entry[2] = round(entry[2], 6)
        count = min(self.top, len(uids))
        best = np.argpartition(-values, count - 1)[:count] if count < len(uids) else range(count)
        names = ssn.resource_index.names
        top = []
        for i in sorted(best, key=lambda i: -values[i]):
            uid = uids[i]
            weighted = drf.jobs[uid].allocated * drf._inverse
            dominant = names[int(np.argmax(weighted))] if len(weighted) else ""
            job = jobs.get(uid)
            top.append([uid, job.queue if job else "", round(float(values[i]), 6), dominant])
        self.shares = JobShares(top, queues)


def _row(resources: tuple[str, ...], values: Mapping[str, float] | None) -> list[int]:
    if not values:
        return [0] * len(resources)
    return [round(values.get(n, 0)) for n in resources]


def _milli(resource: Resource | None) -> dict[str, float]:
    if resource is None:
        return {}
    return {k: float(v) for k, v in resource.items()}


def build_sample(
    *,
    cluster: ClusterInfo,
    decisions: Decisions,
    job_shares: JobShares | None,
    e2e_ms: float,
    binds: int,
    evictions: int,
) -> dict[str, Any]:
    """Return one session's figures (the history's layout, less its version and buckets)."""
    report = decisions.shares
    resources = tuple(report.resources) if report is not None else ()
    # 1. PodGroups per queue and phase, after the session (its phase decisions applied); pods
    # pending and running per queue as the snapshot held them; evictions per queue.
    phases: dict[str, dict[str, int]] = {}
    pods: dict[str, list[int]] = {}  # queue -> [pending, running]
    evicted = {e.task for e in decisions.evictions}
    by_queue: dict[str, int] = {}
    for uid, job in cluster.jobs.items():
        phase = _PHASES.get(decisions.pod_group_phases.get(uid, job.phase))
        if phase is not None:
            counts = phases.setdefault(job.queue, {})
            counts[phase] = counts.get(phase, 0) + 1
        held = pods.setdefault(job.queue, [0, 0])
        held[0] += job.count(TaskStatus.PENDING)
        held[1] += job.count(TaskStatus.RUNNING)
        if evicted and (hit := len(evicted.intersection(job.tasks))):
            by_queue[job.queue] = by_queue.get(job.queue, 0) + hit
    # 2. Queue columns: the sharing plugin's accounting where it has one.
    names = sorted(cluster.queues)
    queues: dict[str, list[Any]] = {k: [] for k in (
        "name", "weight", "pending", "inqueue", "running", "pods_pending", "pods_running",
        "share", "allocated", "deserved", "guarantee", "capability")}  # fmt: skip
    for name in names:
        queue = cluster.queues[name]
        share = report.queues.get(name) if report is not None else None
        counts = phases.get(name, {})
        queues["name"].append(name)
        queues["weight"].append(queue.weight)
        for phase in ("pending", "inqueue", "running"):
            queues[phase].append(counts.get(phase, 0))
        pending_pods, running_pods = pods.get(name, (0, 0))
        queues["pods_pending"].append(pending_pods)
        queues["pods_running"].append(running_pods)
        queues["share"].append(round(share.share, 6) if share else 0.0)
        queues["allocated"].append(_row(resources, share.allocated if share else None))
        queues["deserved"].append(_row(resources, share.deserved if share else None))
        guarantee = share.guarantee if share else _milli(queue.guarantee)
        queues["guarantee"].append(_row(resources, guarantee))
        capability = share.real_capability if share and share.taking_part else None
        queues["capability"].append(_row(resources, capability or _milli(queue.capability)))
    # 3. The session: latencies and what it did.
    timings = decisions.timings
    by_action: dict[str, int] = {}
    for eviction in decisions.evictions:
        by_action[eviction.action] = by_action.get(eviction.action, 0) + 1
    shares = job_shares or JobShares()
    return {
        "resources": list(resources),
        "queues": queues,
        "drf": {"top": shares.top, "queues": shares.queues},
        "latency": {
            "e2e": round(e2e_ms, 3),
            "e2e_max": round(e2e_ms, 3),
            "actions": {k: round(v * 1000, 3) for k, v in timings.actions.items()},
            "plugins": {k: round(v * 1000, 3) for k, v in timings.plugins().items()},
        },
        "counts": {
            "binds": binds,
            "evictions": evictions,
            "evictions_by_action": by_action,
            "evictions_by_queue": by_queue,
            "pipelined": len(decisions.pipelined),
            "unschedulable_jobs": len(decisions.unschedulable),
            # the pending pods of those jobs, as Volcano's volcano_unschedule_task_count
            "unschedulable_tasks": sum(
                cluster.jobs[uid].count(TaskStatus.PENDING)
                for uid in decisions.unschedulable
                if uid in cluster.jobs
            ),
        },
    }
