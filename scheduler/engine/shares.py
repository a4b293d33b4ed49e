"""Queue shares as the engine computes them: deserved, overused, reclaimable, the line of jobs.

The console shows every queue's deserved share and previews how a change of weight or quota
would move it. Those figures must be the scheduler's own, not a re-derivation that drifts from
it, so this module opens a real session on a snapshot (every enabled plugin's
``on_session_open`` runs: proportion water-fills, capacity resolves its tree) and reads the
queue-sharing plugin's accounting, then drops the session without running an action. A preview
is the same call on a snapshot whose queues were edited first (``QueueChange``).

Volcano's counterpart: the figures proportion and capacity export as ``volcano_queue_*``
metrics at session open.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cmp_to_key
from typing import Any

import numpy as np

from scheduler.engine.api.cluster_info import ClusterInfo
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.resource import Resource
from scheduler.engine.api.types import PodGroupPhase
from scheduler.engine.conf import SchedulerConf
from scheduler.engine.framework.session import Session, open_session
from scheduler.engine.util import quota

__all__ = [
    "QueueChange",
    "QueueShare",
    "ShareReport",
    "apply_changes",
    "queue_shares",
    "queue_shares_pair",
    "share_report",
]

SHARING_PLUGINS = ("proportion", "capacity")
_WAITING = (PodGroupPhase.PENDING, PodGroupPhase.INQUEUE)


@dataclass(frozen=True, slots=True)
class QueueChange:
    """An edit of one queue's sharing fields; ``None`` leaves a field as it is."""

    weight: int | None = None
    capability: Mapping[str, int] | None = None
    deserved: Mapping[str, int] | None = None
    guarantee: Mapping[str, int] | None = None


@dataclass(frozen=True, slots=True)
class QueueShare:
    """One queue's accounting in milli-units per resource, as the sharing plugin holds it.

    ``taking_part`` is False for a queue that holds no job: proportion gives such a queue no
    deserved share at all (Volcano's ``queueOpts`` only has queues with jobs).
    """

    name: str
    weight: int
    taking_part: bool
    deserved: dict[str, float]
    allocated: dict[str, int]
    request: dict[str, int]
    guarantee: dict[str, int]
    real_capability: dict[str, int]
    share: float
    overused: bool
    reclaimable: bool


@dataclass(slots=True)
class ShareReport:
    """Every queue's share, the plugin that computed it, and the engine's order of work.

    ``queue_order`` is the order allocate visits queues; ``job_order[queue]`` the queue's
    waiting jobs (PodGroups Pending or Inqueue) as ``namespace/name`` in the order allocate
    takes them (job order plugins: priority, gang, drf, sla...).
    """

    plugin: str
    resources: tuple[str, ...]
    queues: dict[str, QueueShare] = field(default_factory=dict)
    queue_order: list[str] = field(default_factory=list)
    job_order: dict[str, list[str]] = field(default_factory=dict)


def apply_changes(cluster: ClusterInfo, changes: Mapping[str, QueueChange]) -> list[str]:
    """Edit the snapshot's queues in place; return the resource names left out.

    A quota on a resource no node, pod or queue of the snapshot mentions cannot change any
    share (the session has no column for it), so it is dropped and named to the caller.
    """
    known = set(cluster.resource_index.names)
    dropped: set[str] = set()

    def resource(values: Mapping[str, int] | None) -> Resource | None:
        if values is None:
            return None
        dropped.update(n for n in values if n not in known)
        kept = {n: int(v) for n, v in values.items() if n in known}
        return Resource(kept) if kept else None

    for name, change in changes.items():
        queue = cluster.queues.get(name)
        if queue is None:
            continue
        if change.weight is not None:
            queue.weight = change.weight
        if change.capability is not None:
            queue.capability = resource(change.capability)
        if change.deserved is not None:
            queue.deserved = resource(change.deserved)
        if change.guarantee is not None:
            queue.guarantee = resource(change.guarantee)
    return sorted(dropped)


def queue_shares(
    cluster: ClusterInfo,
    conf: SchedulerConf,
    *,
    changes: Mapping[str, QueueChange] | None = None,
) -> ShareReport:
    """Return every queue's share under ``conf``, after ``changes`` (the snapshot is consumed).

    The session is opened (plugins compute their state) and released; no action runs, so
    nothing is decided. The caller must not reuse ``cluster`` for a real session.
    """
    if changes:
        apply_changes(cluster, changes)
    ssn = open_session(cluster, conf, uid="shares")
    try:
        return share_report(ssn)
    finally:
        ssn.release()


def queue_shares_pair(
    cluster: ClusterInfo, conf: SchedulerConf, changes: Mapping[str, QueueChange]
) -> tuple[ShareReport, ShareReport]:
    """Return the shares before and after ``changes``, from one snapshot (consumed).

    Why one snapshot: reading it is most of a preview's cost on a large cluster, and both
    sides must see the same cluster. Opening a session leaves the snapshot's nodes, jobs and
    queues as they were (plugins keep their state on the session, which is released; only
    invalid jobs gain an ``Unschedulable`` condition, which no share depends on), so the
    second session opens on the same cluster with the queues edited.
    """
    before = queue_shares(cluster, conf)
    after = queue_shares(cluster, conf, changes=changes)
    return before, after


def share_report(ssn: Session) -> ShareReport:
    """Return the shares of an opened session (before its actions: what the plugins computed)."""
    index = ssn.resource_index
    names = tuple(index.names)
    plugin_name = next((p for p in SHARING_PLUGINS if p in ssn.plugins), "")
    attrs: Mapping[str, Any] = {}
    if plugin_name == "proportion":
        attrs = ssn.plugins["proportion"].attrs  # type: ignore[attr-defined]
    elif plugin_name == "capacity":
        attrs = ssn.plugins["capacity"].tree.attrs  # type: ignore[attr-defined]
    report = ShareReport(plugin=plugin_name, resources=names)
    zeros = np.zeros(len(names), dtype=np.int64)
    for name, queue in sorted(ssn.queues.items()):
        attr = attrs.get(name)
        if attr is None:
            guarantee = quota.row(index, queue.guarantee)
            report.queues[name] = QueueShare(
                name=name,
                weight=queue.weight,
                taking_part=False,
                deserved={},
                allocated={},
                request={},
                guarantee=_ints(names, guarantee),
                real_capability={},
                share=0.0,
                overused=False,
                reclaimable=False,
            )
            continue
        deserved = np.asarray(attr.deserved, dtype=np.float64)
        allocated = np.asarray(attr.allocated, dtype=np.int64)
        over_deserved = not quota.le_all(allocated, deserved)
        report.queues[name] = QueueShare(
            name=name,
            weight=queue.weight,
            taking_part=True,
            deserved={n: float(v) for n, v in zip(names, deserved.tolist(), strict=True) if v},
            allocated=_ints(names, allocated),
            request=_ints(names, getattr(attr, "request", zeros)),
            guarantee=_ints(names, attr.guarantee),
            real_capability=_ints(names, attr.real_capability),
            share=float(attr.share),
            overused=_overused(ssn, plugin_name, name, deserved, allocated),
            reclaimable=bool(queue.reclaimable and over_deserved),
        )
    _orders(ssn, report)
    return report


def _ints(names: tuple[str, ...], row: Any) -> dict[str, int]:
    return {n: int(v) for n, v in zip(names, np.asarray(row).tolist(), strict=True) if v}


def _overused(
    ssn: Session, plugin: str, name: str, deserved: np.ndarray, allocated: np.ndarray
) -> bool:
    """Proportion answers through its hook; capacity has none, so: at deserved in every column."""
    if plugin == "proportion":
        return bool(ssn.overused(ssn.queues[name]))
    counted = deserved > 0
    return bool(counted.any() and np.all(deserved[counted] <= allocated[counted]))


def _orders(ssn: Session, report: ShareReport) -> None:
    holding = {job.queue for job in ssn.jobs.values()}
    queues = [q for n, q in ssn.queues.items() if n in holding]
    report.queue_order = [q.name for q in sorted(queues, key=cmp_to_key(ssn.queue_order_cmp))]
    waiting: dict[str, list[JobInfo]] = {}
    for job in ssn.jobs.values():
        if job.phase in _WAITING:
            waiting.setdefault(job.queue, []).append(job)
    key = ssn.job_order_key()  # a plain sort key where the plugins offer one: much faster
    for name, jobs in waiting.items():
        jobs.sort(key=key if key is not None else cmp_to_key(ssn.job_order_cmp))
        report.job_order[name] = [f"{job.namespace}/{job.name}" for job in jobs]
