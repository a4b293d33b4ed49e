"""A quiet cluster's snapshot: copied from the one built for it rather than built again.

When nothing the snapshot is made of changed since the last read (the change stream names no
node, PodGroup or pod, and the small tables read the same), the read keeps the snapshot it
built as a pristine original, never handed to a session, and each later quiet read hands out a
copy of it: every object the session may change (tasks, jobs, nodes, the node arrays, the
containers of each) is copied, and what the engine never changes is shared (requests, templates,
frozen specs), as the per-row memo (``row_memo``) already shares them. The copy skips the
per-pod loop and ``ClusterInfo.build`` (resource vectors, template keys, placing every running
pod on its node); only the nodes' measured usage is stamped again, with the new ``now``.

Option (a) of issue 34's target 3: the original is copied, not rolled back after the session,
so the engine need not know. The first quiet read builds as usual and copies once; a read with
any change drops the original (``forget``) and builds from the memo as before.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from scheduler.cache.row_cache import ReadStats, Rows
from scheduler.cache.row_memo import clone_job, clone_task
from scheduler.cache.slot_objects import slot_copier, tuple_maker
from scheduler.engine.api.cluster_info import ClusterInfo
from scheduler.engine.api.node_info import NodeInfo, NodeUsage
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.task_info import TaskInfo

__all__ = ["Kept", "copy_kept", "forget", "is_quiet", "keep", "kept"]

_copy_node = slot_copier(NodeInfo)
_copy_cluster = slot_copier(ClusterInfo)
_usage = tuple_maker(NodeUsage, ("metrics_time", "cpu_usage_avg", "mem_usage_avg"))


@dataclass(slots=True)
class Kept:
    """The pristine snapshot of a quiet read, with what it was built from."""

    tables: object  # the small tables as read (compared with ==)
    snapshot: Any  # a ``snapshot.Snapshot`` no session ever gets


def is_quiet(stats: ReadStats) -> bool:
    """Return whether the row cache's last refresh found nothing changed."""
    return stats.mode == "incremental" and stats.changes == 0 and stats.fetched == 0


def kept(rows: Rows, tables: object) -> Kept | None:
    """Return the pristine snapshot kept with ``rows`` if the small tables still read ``tables``."""
    found = rows.memo.get("quiet")
    return found if isinstance(found, Kept) and found.tables == tables else None


def keep(rows: Rows, found: Kept) -> None:
    """Keep ``found`` with ``rows`` for the next quiet read."""
    rows.memo["quiet"] = found


def forget(rows: Rows) -> None:
    """Drop the pristine snapshot (rows changed: the next quiet read builds a new one)."""
    rows.memo.pop("quiet", None)


def copy_kept(found: Kept, now: datetime, queues: list[QueueInfo], snapshot: Any) -> Any:
    """Fill ``snapshot`` (a new, empty ``Snapshot``) with a copy of ``found`` for a session.

    ``queues``: this read's own QueueInfo objects (rows equal to the kept ones'), placed as
    ``ClusterInfo.build`` places them.
    """
    original = found.snapshot
    cluster = original.cluster
    copies: dict[str, TaskInfo] = {}  # task uid → its copy
    jobs = {}
    for uid, job in cluster.jobs.items():
        new = clone_job(job)
        tasks = {task_uid: clone_task(task) for task_uid, task in job.tasks.items()}
        copies.update(tasks)
        new.tasks = tasks
        new.task_status_index = {
            status: {task_uid: tasks[task_uid] for task_uid in bucket}
            for status, bucket in job.task_status_index.items()
        }
        new.fit_errors = dict(job.fit_errors)
        new.sub_jobs = copy.deepcopy(job.sub_jobs)  # None: built by a session, never here
        jobs[uid] = new
    memo: dict[int, Any] = {}
    arrays = copy.deepcopy(cluster.arrays, memo)
    index = memo.get(id(cluster.resource_index)) or copy.deepcopy(cluster.resource_index, memo)
    nodes: dict[str, NodeInfo] = {}
    for name, node in cluster.nodes.items():
        new_node = _copy_node(node)
        new_node.labels = dict(node.labels)
        new_node.annotations = dict(node.annotations)
        # Tasks of no job, or of a job dropped for its missing queue, are only on their node.
        new_node.tasks = {
            task_uid: copies.get(task_uid) or clone_task(task)
            for task_uid, task in node.tasks.items()
        }
        new_node.arrays = arrays
        if node.numatopology is not None:
            new_node.numatopology = copy.deepcopy(node.numatopology)
        nodes[name] = new_node
    queue_map = {q.name: q for q in queues}
    for name, queue in cluster.queues.items():  # the default queue build adds when missing
        if name not in queue_map:
            queue_map[name] = QueueInfo(name=queue.name)
    new_cluster = _copy_cluster(cluster)
    new_cluster.now = now
    new_cluster.nodes = nodes
    new_cluster.node_list = [nodes[node.name] for node in cluster.node_list]
    new_cluster.jobs = jobs
    new_cluster.queues = queue_map
    new_cluster.priority_classes = dict(cluster.priority_classes)
    new_cluster.resource_index = index
    new_cluster.arrays = arrays
    new_cluster.dropped_jobs = list(cluster.dropped_jobs)
    new_cluster.pdbs = list(cluster.pdbs)
    new_cluster.resource_quotas = {ns: list(q) for ns, q in cluster.resource_quotas.items()}
    new_cluster.hypernodes = dict(cluster.hypernodes)
    snapshot.cluster = new_cluster
    snapshot.pods = dict(original.pods)
    snapshot.nodes = dict(original.nodes)
    snapshot.pod_groups = dict(original.pod_groups)
    snapshot.pod_group_conditions = dict(original.pod_group_conditions)
    snapshot.loads = {pk: list(load) for pk, load in original.loads.items()}
    # The nodes' measured usage as ``MeasuredUsage.fill`` would set it at ``now``: the same
    # figures (their mappings shared: NodeUsage is frozen), measured at this read's time.
    for node in nodes.values():
        usage = node.resource_usage
        if usage.metrics_time is not None:  # (every Ready node's is: ``fill`` measures all)
            node.resource_usage = _usage((now, usage.cpu_usage_avg, usage.mem_usage_avg))
    return snapshot
