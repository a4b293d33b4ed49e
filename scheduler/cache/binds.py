"""Binds → rows: a gang bound whole onto nodes that still have room, or not at all.

Volcano's counterpart: ``SchedulerCache.Bind``, which binds through the API server, whose
resourceVersion check refuses a write to an object that changed; we do the same with the versions
the snapshot was read at, inside the caller's transaction (``apply``):

1. Lock the target nodes (``SELECT … FOR UPDATE`` in id order on PostgreSQL; SQLite's IMMEDIATE
   transaction already holds the one write lock). A node that changed (cordoned, NotReady,
   resized) since the snapshot refuses its binds, and so does every other bind of the same job:
   a gang is bound whole or waits for the next session, never in part.
2. Each target node's load is re-read from the database (whatever any other writer did meanwhile)
   and a node that the accepted binds would push over its allocatable cpu, memory, GPUs or pod
   slots refuses the binds of the jobs that land on it. (A pod that step 3 then finds stale
   still counted here: the check errs on the side of refusing, and the next session retries.)
3. The accepted binds are written with one set-based conditional UPDATE (``WHERE
   resource_version = <snapshot's>``, ``rows.write_rows``), optimistically: a pod that changed
   (deleted, bound elsewhere, edited) since the snapshot is not written, and if any was not, the
   write is rolled back to its savepoint and redone without those pods' jobs. Nothing locks the
   pods first: a lock is itself a write of each row, and stale pods are rare. Each bind records
   its ``Scheduled`` Event in the same statement (``events.RowEvents``).

Refused binds are not errors: the next session reads those pods afresh and decides again.

Failed binds are: a node carrying an injected bind failure (``kubelet.faults.BIND_FAILURE``)
fails every bind to it with that error, as a broken kubelet or API server would. The session
learns of it as it binds (``session_binder``: the task's room on the node is released at once,
Volcano's resync) and, should the fault have come after the snapshot, step 1 does
(``BindResult.failed``). Either way the pod shows ``PodScheduled=False`` reason
``SchedulerError`` (``pod_status``) and the next session tries again. Unlike a refusal, a failed
bind is the pod's own, as in Volcano's ``SchedulerCache.Bind``: the gang's other binds stand.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, transaction

from core.models import Node, Pod
from core.row_events import RowEvents
from kube import failpoints
from kubelet.faults import BIND_FAILURE
from scheduler.cache.pod_status import PodStatusWriter
from scheduler.cache.rows import keyed_rows, write_rows
from scheduler.cache.snapshot import PodRow, Snapshot
from scheduler.engine.api.types import TaskStatus
from scheduler.engine.framework.session import Binder

__all__ = [
    "BIND_COLUMNS",
    "BIND_WHERE",
    "NODE_COLUMNS",
    "BindResult",
    "bind_row",
    "limits_of",
    "node_loads",
    "session_binder",
    "usable_nodes",
    "write_binds",
]

GPU = "nvidia.com/gpu"
# A bind's write: the node, status Bound, ``PodScheduled=True`` and no nominee (``bind_row``),
# to a pod still pending, unbound and not being deleted.
BIND_COLUMNS = [("node_id", "bigint"), ("task_status", "text"), ("conditions", "jsonb"),
                ("nominated_node_name", "text")]  # fmt: skip
BIND_WHERE = "t.node_id IS NULL AND t.phase = 'Pending' AND t.deletion_time IS NULL"
# What the bind checks read of a node (``keyed_rows`` columns, ``usable_nodes`` reads them).
NODE_COLUMNS = (
    "t.id, t.name, t.resource_version, t.ready, t.unschedulable, CAST(t.allocatable AS TEXT), "
    "CAST(t.annotations AS TEXT)"
)
# An injected bind failure, as it appears in a node's annotations text.
_BIND_FAILURE = json.dumps(BIND_FAILURE)

Limits = tuple[int, int, int, int]  # cpu, memory, gpu, pods x 1000


@dataclass(slots=True)
class BindResult:
    """How many binds were written, and the task uids not written (refused or failed), sorted.

    ``failed``: task uid → (node, error) of the binds that failed (an injected bind failure).
    """

    bound: int = 0
    skipped: list[str] = field(default_factory=list)
    failed: dict[str, tuple[str, str]] = field(default_factory=dict)


def session_binder(snapshot: Snapshot) -> Binder | None:
    """Return the engine's ``Binder`` for a session on ``snapshot``; None if every bind takes.

    The binds that would fail are those to a node whose injected bind failure the snapshot
    read: the session then releases their room at once, so later jobs may use it.
    """
    refusing = {
        name: str(node.annotations[BIND_FAILURE])
        for name, node in snapshot.cluster.nodes.items()
        if BIND_FAILURE in node.annotations
    }
    if not refusing:
        return None

    def bind(task: str, node: str) -> str | None:
        return refusing.get(node)

    return bind


def write_binds(snapshot: Snapshot, wanted: Mapping[str, str], pods: PodStatusWriter) -> BindResult:
    """Write ``wanted`` (task uid → node name) taken on ``snapshot``; return what took."""
    result = BindResult()
    accepted = _accept_binds(snapshot, wanted, pods, result)
    _write_binds(accepted, pods, result)
    result.skipped.sort()
    return result


# One accepted bind: (task uid, its job, the ``bind_row`` that writes it)
_Bind = tuple[str, str, tuple[Any, ...]]


def _accept_binds(
    snapshot: Snapshot, wanted: Mapping[str, str], pods: PodStatusWriter, result: BindResult
) -> list[_Bind]:
    """Steps 1 and 2: the binds whose node is unchanged and has room; refuse the rest by job."""
    binds: list[_Bind] = []
    bad_jobs: set[str] = set()
    known_pods, nodes = snapshot.pods, snapshot.nodes
    # node pk → job → [cpu, memory, gpu, pods] its binds ask of that node
    asks: dict[int, dict[str, list[int]]] = defaultdict(dict)
    for task_uid, node_name in wanted.items():
        row, node = known_pods.get(task_uid), nodes.get(node_name)
        if row is None or node is None:  # not from this snapshot: refuse the job's binds
            bad_jobs.add(row.job if row else task_uid)
            continue
        job, node_pk = row.job, node[0]
        binds.append((task_uid, job, bind_row(task_uid, node_name, node_pk, row, pods)))
        on_node = asks[node_pk]
        ask = on_node.get(job)
        if ask is None:
            on_node[job] = [row.cpu, row.memory, row.gpu, 1000]
        else:
            ask[0] += row.cpu
            ask[1] += row.memory
            ask[2] += row.gpu
            ask[3] += 1000
    if not binds:
        result.skipped = list(wanted)
        return []
    # 1. The target nodes, locked: a node's binds are refused if it changed since the snapshot.
    pg = connection.vendor == "postgresql"
    refusing: dict[int, str] = {}  # node pk → the error its binds fail with
    with connection.cursor() as cursor:
        sql, params = keyed_rows(Node._meta.db_table, sorted(asks), NODE_COLUMNS)
        cursor.execute(sql + (" ORDER BY t.id FOR UPDATE OF t" if pg else ""), params)
        limits = usable_nodes(snapshot, cursor.fetchall(), refusing)
    if refusing:  # those binds fail, each on its own; the rest of their jobs go on
        for task_uid, _, written in binds:
            if written[2] in refusing:  # its node's pk
                result.failed[task_uid] = (wanted[task_uid], refusing[written[2]])
        binds = [bind for bind in binds if bind[2][2] not in refusing]
        for pk in refusing:
            asks.pop(pk, None)
    for pk, jobs in asks.items():
        if pk not in limits:
            bad_jobs.update(jobs)
    # 2. Capacity against the database's view of each node, until no node overflows.
    used = {pk: load for pk, *load in node_loads() if pk in limits}
    while True:
        newly: set[str] = set()
        for pk, (cpu_cap, memory_cap, gpu_cap, pods_cap) in limits.items():
            cpu, memory, gpu, slots = used.get(pk) or (0, 0, 0, 0)
            for job, ask in asks[pk].items():
                if job not in bad_jobs:
                    cpu += ask[0]
                    memory += ask[1]
                    gpu += ask[2]
                    slots += ask[3]
            if (
                (cpu and cpu > cpu_cap)
                or (memory and memory > memory_cap)
                or (gpu and gpu > gpu_cap)
                or (slots and slots > pods_cap)
            ):
                newly.update(job for job in asks[pk] if job not in bad_jobs)
        if not newly:
            break
        bad_jobs |= newly
    accepted = [bind for bind in binds if bind[1] not in bad_jobs] if bad_jobs else binds
    taken = {bind[0] for bind in accepted}
    result.skipped = [t for t in wanted if t not in taken]
    return accepted


def usable_nodes(
    snapshot: Snapshot, rows: Iterable[Sequence[Any]], refusing: dict[int, str] | None = None
) -> dict[int, Limits]:
    """Return the limits of the nodes among ``rows`` (``NODE_COLUMNS``) that may get binds.

    A node may if it is still Ready, schedulable, at the version the snapshot read and without
    an injected bind failure (a substring test: most nodes have no annotations to decode); the
    error of each node with one goes into ``refusing`` (node pk → error), if given.
    """
    nodes = snapshot.nodes
    limits: dict[int, Limits] = {}
    texts: dict[str, Limits] = {}
    for pk, name, version, ready, cordoned, alloc, notes in rows:
        if notes and _BIND_FAILURE in notes:
            if refusing is not None:
                refusing[pk] = str(json.loads(notes).get(BIND_FAILURE) or "bind refused")
            continue
        if ready and not cordoned and nodes.get(name) == (pk, version):
            if alloc not in texts:
                texts[alloc] = limits_of(json.loads(alloc) if alloc else {})
            limits[pk] = texts[alloc]
    return limits


def node_loads() -> list[tuple[int, int, int, int, int]]:
    """Return ``(node pk, cpu, memory, gpu, pods x 1000)`` held on every node with pods.

    One aggregate over every node: cheaper than IN lists when thousands of nodes get binds.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT node_id, SUM(cpu_milli), SUM(memory_milli), SUM(gpu_milli), COUNT(*) "
            f"FROM {Pod._meta.db_table} WHERE node_id IS NOT NULL "
            "AND phase IN ('Pending', 'Running') GROUP BY node_id"
        )
        return [(node_id, int(cpu or 0), int(memory or 0), int(gpu or 0), int(n) * 1000)
                for node_id, cpu, memory, gpu, n in cursor.fetchall()]  # fmt: skip


def bind_row(
    task: str, node: str, node_pk: int, pod: PodRow, pods: PodStatusWriter
) -> tuple[Any, ...]:
    """Return the ``write_rows`` row binding ``pod`` (task ``task``) to ``node``."""
    failpoints.hit("bind.node", node)
    return (pod.pk, pod.resource_version, node_pk, TaskStatus.BOUND.value, pods.scheduled(pod),
            "", f"Successfully assigned {task} to {node}")  # fmt: skip


def limits_of(allocatable: dict[str, Any]) -> Limits:
    """Return a node's ``(cpu, memory, gpu, pods x 1000)`` from its allocatable."""
    return (
        int(allocatable.get("cpu", 0)),
        int(allocatable.get("memory", 0)),
        int(allocatable.get(GPU, 0)),
        int(allocatable.get("pods", 0)),
    )


def _write_binds(accepted: list[_Bind], pods: PodStatusWriter, result: BindResult) -> None:
    """Step 3. Bind: the node, status Bound, ``PodScheduled=True`` and no nominee, in one write.

    A pod that changed since the snapshot is not written; then the whole write is undone to its
    savepoint and redone without that pod's job (a gang is bound whole or not at all). Each
    round only drops jobs, so it ends.
    """
    events = RowEvents("Pod", "Scheduled", pods.when)
    while accepted:
        savepoint = transaction.savepoint()
        written = set(
            write_rows(Pod, BIND_COLUMNS, [bind[2] for bind in accepted], where=BIND_WHERE,
                       events=events)
        )  # fmt: skip
        stale = {job for _, job, row in accepted if row[0] not in written}
        if not stale:
            transaction.savepoint_commit(savepoint)
            result.bound = len(written)
            break
        transaction.savepoint_rollback(savepoint)
        result.skipped.extend(task for task, job, _ in accepted if job in stale)
        accepted = [bind for bind in accepted if bind[1] not in stale]
