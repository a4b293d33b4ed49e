"""The snapshot one session works on: nodes, jobs, queues, priority classes and the clock.

Volcano's counterpart: ``pkg/scheduler/api/cluster_info.go`` (built by the cache's Snapshot()).
``ClusterInfo.build`` is the only constructor: it sorts nodes by name (row order = tie order, so
results are deterministic), fixes the resource index, fills the node arrays with the tasks that
occupy nodes, adds the ``default`` queue and drops jobs whose queue does not exist.

Pods that belong to no PodGroup (not scheduled by Volcano, or a finished job's pods whose group is
gone) are ``occupants``: they hold their node's resources but are no job, as Volcano's cache keeps
such pods on their nodes only and leaves them out of the session's jobs.

A session mutates the snapshot it is given (task statuses, node accounting), as Volcano's session
mutates its cloned snapshot: build a fresh one (or ``clone()``) for every session.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from scheduler.engine.api.hypernode import HyperNodeInfo
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.node_info import NodeArrays, NodeInfo
from scheduler.engine.api.pdb_info import PdbInfo
from scheduler.engine.api.queue_info import DEFAULT_QUEUE, QueueInfo
from scheduler.engine.api.quota_info import QuotaInfo
from scheduler.engine.api.resource import Resource, ResourceIndex
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import TaskStatus

__all__ = ["ClusterInfo"]

# Tasks in these statuses hold no node resources (Volcano's cache skips terminated pods).
_OFF_NODE = frozenset({TaskStatus.PENDING, TaskStatus.SUCCEEDED, TaskStatus.FAILED})


@dataclass(slots=True, eq=False)
class ClusterInfo:
    """One consistent snapshot; ``now`` is the injected clock (no engine code reads the time)."""

    now: datetime
    nodes: dict[str, NodeInfo]
    node_list: list[NodeInfo]
    jobs: dict[str, JobInfo]
    queues: dict[str, QueueInfo]
    priority_classes: dict[str, int]
    resource_index: ResourceIndex
    arrays: NodeArrays
    default_priority: int = 0
    dropped_jobs: list[str] = field(default_factory=list)
    # PodDisruptionBudgets of the cluster (the pdb plugin's victim filter reads them).
    pdbs: list[PdbInfo] = field(default_factory=list)
    # namespace -> its ResourceQuotas (by name): what the resourcequota plugin admits against
    resource_quotas: dict[str, list[QuotaInfo]] = field(default_factory=dict)
    # The cluster's HyperNodes (network topology), by name; the session derives the tree.
    hypernodes: dict[str, HyperNodeInfo] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        *,
        now: datetime,
        nodes: Iterable[NodeInfo],
        jobs: Iterable[JobInfo],
        queues: Iterable[QueueInfo] = (),
        priority_classes: dict[str, int] | None = None,
        default_priority: int = 0,
        occupants: Iterable[TaskInfo] = (),
        pdbs: Iterable[PdbInfo] = (),
        resource_quotas: Iterable[QuotaInfo] = (),
        hypernodes: Iterable[HyperNodeInfo] = (),
    ) -> ClusterInfo:
        """Return a snapshot of ``nodes``, ``jobs`` and ``queues`` with accounting filled in.

        ``occupants`` are tasks of no job that hold a node (see the module docstring).
        """
        node_list = sorted(nodes, key=lambda n: n.name)
        job_list = list(jobs)
        held = list(occupants)
        queue_map = {q.name: q for q in queues}
        queue_map.setdefault(DEFAULT_QUEUE, QueueInfo(name=DEFAULT_QUEUE))
        # 1. Fix the resource columns: every name any node, task or quota mentions.
        names: set[str] = set()
        for node in node_list:
            names.update(node.allocatable.names())
        for job in job_list:
            for task in job.tasks.values():
                names.update(task.resreq.names())
            if job.min_resources is not None:
                names.update(job.min_resources.names())
        for task in held:
            names.update(task.resreq.names())
        for q in queue_map.values():
            for res in (q.capability, q.deserved, q.guarantee):
                if res is not None:
                    names.update(res.names())
        index = ResourceIndex(names)
        # 2. Node rows, sorted by name.
        arrays = NodeArrays(index, [n.allocatable for n in node_list])
        node_map: dict[str, NodeInfo] = {}
        for i, node in enumerate(node_list):
            node.index, node.arrays, node.tasks = i, arrays, {}
            node_map[node.name] = node
        # 3. Request rows for every task; tasks that hold a node go onto it. Node answers are
        # cached per template key; labels are left out of it when no pod has inter-pod rules
        # (nothing else reads them), so one-pod jobs of one spec share one cache entry.
        with_labels = any(
            t.template.relates_pods for j in job_list for t in j.tasks.values()
        ) or any(t.template.relates_pods for t in held)
        for job in job_list:
            for task in job.tasks.values():
                task.resreq_vec = index.vector(task.resreq)
                if with_labels:
                    task.compute_template_key()
                else:
                    task.template_key = (task.resreq.key(), task.template.spec_key)
                host = node_map.get(task.node_name) if task.node_name else None
                if host is not None and task.status not in _OFF_NODE:
                    host.add_task(task)
        for task in held:
            host = node_map.get(task.node_name) if task.node_name else None
            if host is not None and task.status not in _OFF_NODE:
                task.resreq_vec = index.vector(task.resreq)
                if with_labels:
                    task.compute_template_key()
                else:
                    task.template_key = (task.resreq.key(), task.template.spec_key)
                host.add_task(task)
        # 4. Jobs whose queue is missing are dropped (their pods still occupy nodes).
        job_map: dict[str, JobInfo] = {}
        dropped: list[str] = []
        for job in sorted(job_list, key=lambda j: j.uid):
            if job.queue in queue_map:
                job_map[job.uid] = job
            else:
                dropped.append(job.uid)
        return cls(
            now=now,
            nodes=node_map,
            node_list=node_list,
            jobs=job_map,
            queues=queue_map,
            priority_classes=dict(priority_classes or {}),
            resource_index=index,
            arrays=arrays,
            default_priority=default_priority,
            dropped_jobs=dropped,
            pdbs=list(pdbs),
            resource_quotas=_quotas_by_namespace(resource_quotas),
            hypernodes={h.name: h for h in sorted(hypernodes, key=lambda h: h.name)},
        )

    def quotas_of(self, namespace: str) -> list[QuotaInfo]:
        """Return the ResourceQuotas of ``namespace`` (by name; empty when it has none)."""
        return self.resource_quotas.get(namespace, [])

    def clone(self) -> ClusterInfo:
        """Return an independent deep copy (for running a second session on the same input)."""
        return copy.deepcopy(self)

    def total_allocatable(self) -> Resource:
        """Return the sum of every node's allocatable."""
        return self.resource_index.resource(self.arrays.allocatable.sum(axis=0))


def _quotas_by_namespace(quotas: Iterable[QuotaInfo]) -> dict[str, list[QuotaInfo]]:
    out: dict[str, list[QuotaInfo]] = {}
    for quota in sorted(quotas, key=lambda q: (q.namespace, q.name)):
        out.setdefault(quota.namespace, []).append(quota)
    return out
