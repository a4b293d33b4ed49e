"""Rows → one consistent engine snapshot (``ClusterInfo``) plus the row versions it was read at.

Volcano's counterpart: ``SchedulerCache.Snapshot()`` in ``pkg/scheduler/cache/cache.go``. Volcano
clones informer state; we read the database in one read transaction (REPEATABLE READ on
PostgreSQL; on SQLite the transaction itself is the snapshot), so every session sees one instant.

Speed matters here (5,000 nodes and 50,000 pods in about 0.2 s), so rows are read with
``values_list`` (never model instances), JSON columns are read as text and decoded once per
distinct text, and pods of one task share one ``TaskTemplate``: the job controller renders all
replicas of a task from one template, so their scheduling constraints (selector, affinity,
tolerations, volumes) are equal even when per-pod env differs. That sharing is also what lets the
engine cache predicate masks per template.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple, cast

from django.db import connection, transaction
from django.db.models import TextField
from django.db.models.functions import Cast
from django.utils import timezone

from core.models import Node, Pod, PriorityClass
from kubelet.sim_usage import SIM_USAGE
from queues.models import PodGroup, Queue
from scheduler.cache.guard_rows import read_pdbs, read_quotas
from scheduler.cache.node_usage import MeasuredUsage
from scheduler.cache.numa_rows import read_numatopologies
from scheduler.cache.pod_fields import (
    ACTIVE_PHASES,
    aware,
)
from scheduler.cache.pod_tasks import PodColumns, pod_task
from scheduler.cache.quiet_reads import Kept, copy_kept, forget, is_quiet, keep, kept
from scheduler.cache.row_cache import ReadStats, RowCache, Rows, by_pk
from scheduler.cache.row_memo import (
    Decoder,
    clone_job,
    decoder,
    job_memo,
    node_memo,
    pod_row_memo,
    task_memo,
)
from scheduler.cache.topology_rows import (
    hypernode_infos,
    job_network_topology,
    job_sub_group_policy,
    queue_affinity,
)
from scheduler.engine.api.cluster_info import ClusterInfo
from scheduler.engine.api.hypernode import HyperNodeInfo
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.node_info import NodeInfo, Taint
from scheduler.engine.api.numa import NumatopoInfo
from scheduler.engine.api.pdb_info import PdbInfo
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.quota_info import QuotaInfo
from scheduler.engine.api.resource import Resource, scheduling_quantities
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import PodGroupCondition, PodGroupPhase, QueueState, TaskStatus
from scheduler.engine.util.gc_pause import no_automatic_gc

__all__ = ["PodColumns", "PodRow", "Snapshot", "read_snapshot"]

TASK_INDEX_LABEL = "volcano.sh/task-index"


class PodRow(NamedTuple):
    """What apply needs about a pod it may write: identity, version, request columns, its job.

    A named tuple, not a frozen dataclass: one is made per pod read, and a frozen dataclass's
    constructor sets each field through ``object.__setattr__`` (about 2 us a pod, 0.1 s at
    50,000 pods); a tuple is made in one C call.
    """

    pk: int
    resource_version: int
    cpu: int
    memory: int
    gpu: int
    job: str
    pending: bool = False  # waiting for a node (the only pods whose PodScheduled apply explains)
    conditions: str | None = None  # status.conditions as stored (JSON text), decoded on demand
    nominated: str = ""  # status.nominatedNodeName


@dataclass(slots=True)
class Snapshot:
    """A ``ClusterInfo`` and the versions of the rows it came from (for stale-row refusal)."""

    cluster: ClusterInfo
    pods: dict[str, PodRow] = field(default_factory=dict)
    nodes: dict[str, tuple[int, int]] = field(default_factory=dict)  # name → (pk, version)
    # uid → (pk, version, phase, running, succeeded, failed) as read
    pod_groups: dict[str, tuple[int, int, str, int, int, int]] = field(default_factory=dict)
    # uid → status.conditions as stored (JSON text): apply decodes each distinct text once
    pod_group_conditions: dict[str, str | None] = field(default_factory=dict)
    # node pk → [cpu, memory, gpu, pods] held by its Pending and Running pods as read, on every
    # node (Ready or not): what the Nodes pages show, stored after the session (load_status)
    loads: dict[int, list[int]] = field(default_factory=dict)
    read_seconds: float = 0.0
    read_stats: ReadStats = field(default_factory=ReadStats)  # full or incremental, and why


def _text(name: str) -> Cast:
    return Cast(name, output_field=TextField())


def _resource(milli: Mapping[str, int] | None) -> Resource | None:
    return Resource({str(k): int(v) for k, v in milli.items()}) if milli else None


def read_snapshot(*, now: datetime | None = None, cache: RowCache | None = None) -> Snapshot:
    """Return the cluster as one session must see it: Ready nodes, live jobs, queues, classes.

    ``cache``: the rows the last read kept (the worker's); only what the change stream says
    changed since is fetched (``row_cache``). Without it, or while another read holds it,
    every row is fetched.
    """
    started = time.perf_counter()
    if cache is not None and not cache.lock.acquire(blocking=False):
        cache = None
    try:
        snapshot = _read_in_transaction(now, cache)
    finally:
        if cache is not None:
            cache.lock.release()
    snapshot.read_seconds = time.perf_counter() - started
    return snapshot


def _read_in_transaction(now: datetime | None, cache: RowCache | None) -> Snapshot:
    # An outer transaction (a test, a caller's atomic block) already fixes what we see.
    outermost = not connection.in_atomic_block
    # No automatic cyclic collection while reading, as in the engine's session: the read builds
    # the objects the session keeps, so passes during it free nothing yet walk them all (on
    # 10,000 one-pod jobs about a third of the read).
    with no_automatic_gc(), transaction.atomic():
        if connection.vendor == "postgresql" and outermost:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        if cache is None:
            # A one-off read: the pods stream through in batches, each freed once read, so
            # the objects built stay close together in memory (holding every row to the end
            # made the session that followed 5 % slower: engine and write alike).
            started, cpu_started = time.perf_counter(), time.process_time()
            rows = Rows(nodes=by_pk(_node_rows()), groups=by_pk(_live_group_rows()), pods={})
            stats = ReadStats("full", "no cache", 0, len(rows.nodes) + len(rows.groups))
            snapshot = _read(now or timezone.now(), rows, keep=False, pods=_pod_batches(stats))
            stats.seconds = time.perf_counter() - started
            stats.cpu_seconds = time.process_time() - cpu_started
            snapshot.read_stats = stats
            return snapshot
        rows = cache.refresh(_node_rows, _live_group_rows, _pod_rows)
        snapshot = _read_quiet_or_built(now or timezone.now(), rows, cache.stats)
        snapshot.read_stats = cache.stats
    return snapshot


def _read_quiet_or_built(now: datetime, rows: Rows, stats: ReadStats) -> Snapshot:
    """Build the snapshot from ``rows``, or copy the one kept if nothing changed (``quiet_reads``)."""
    tables = _read_tables(rows)
    if not is_quiet(stats):
        forget(rows)
        return _read(now, rows, tables=tables)
    found = kept(rows, tables)
    stats.copied = found is not None
    if found is None:  # the first quiet read: build, keep it pristine, hand out a copy
        original = _read(now, rows, tables=tables)
        found = Kept(tables, original)
        keep(rows, found)
    queues = [_queue(row) for row in tables.queues]
    snapshot = Snapshot(cluster=found.snapshot.cluster)
    return cast(Snapshot, copy_kept(found, now, queues, snapshot))


def _read(
    now: datetime,
    rows: Rows,
    *,
    keep: bool = True,
    pods: Iterable[tuple[Any, ...]] | None = None,
    tables: _Tables | None = None,
) -> Snapshot:
    """Build the snapshot from ``rows``; ``keep``: remember what is worked out per row for the
    next read (the worker's cache), else nothing is kept (a one-off read frees less).
    ``pods``: the pod rows, if not ``rows.pods`` (a one-off read streams them)."""
    # 1. Priority classes (pods and PodGroups resolve their priority through them), queues.
    tables = tables or _read_tables(rows)
    classes, default_priority = dict(tables.classes), tables.default_priority
    queues = [_queue(row) for row in tables.queues]
    # 3. Nodes: every row names its pods' host; only Ready ones enter the snapshot.
    snapshot = Snapshot(cluster=ClusterInfo.build(now=now, nodes=(), jobs=()))
    node_names: dict[int, str] = {}
    nodes: list[NodeInfo] = []
    ready_nodes: dict[int, NodeInfo] = {}
    decode = decoder(rows)
    old_nodes, fresh_nodes = node_memo(rows)
    for row in rows.nodes.values():
        pk, name, version, ready, alloc, labels, notes, taints, cordoned, cap = row
        node_names[pk] = name
        if ready:
            snapshot.nodes[name] = (pk, version)
            # A node's parts are worked out once while its row is unchanged; each read gets a
            # NodeInfo of its own (the session fills and changes it, not these parts).
            found = old_nodes.get(pk)
            if found is None or found[0] is not row:
                node = _node(name, decode(alloc), decode(labels), decode(notes), decode(taints),
                             bool(cordoned), decode(cap))  # fmt: skip
                found = (row, node)
            else:
                kept = found[1]
                node = NodeInfo(
                    name=name, allocatable=kept.allocatable, labels=dict(kept.labels),
                    annotations=dict(kept.annotations), taints=kept.taints,
                    unschedulable=kept.unschedulable, capacity=kept.capacity,
                )  # fmt: skip
            if keep:
                fresh_nodes[pk] = found
            nodes.append(node)
            ready_nodes[pk] = nodes[-1]
    # 3b. Their Numatopologies (numa-aware), published by the resource exporter.
    by_name = {node.name: node for node in nodes}
    for name, topology in tables.numatopologies.items():
        by_name[name].numatopology = copy.deepcopy(topology) if keep else topology
    # 4. PodGroups that are not finished, and pods of them (or still holding a node).
    jobs: dict[str, JobInfo] = {}
    group_uids: dict[int, str] = {}
    old_jobs, fresh_jobs = job_memo(rows, (classes, default_priority))
    for row in rows.groups.values():
        # A job is built once while its row is unchanged; each read gets a copy of it.
        found = old_jobs.get(row[0])
        if found is None or found[0] is not row:
            found = (row, _job(row, decode, classes, default_priority))
        if keep:
            fresh_jobs[row[0]] = found
        job = clone_job(found[1]) if keep else found[1]
        _known_group(snapshot, row)
        jobs[job.uid] = job
        group_uids[row[0]] = job.uid
    occupants: list[TaskInfo] = []
    memo = task_memo(rows, (classes, default_priority, node_names))
    old_pod_rows, pod_rows = pod_row_memo(rows)
    loads = snapshot.loads
    measured = MeasuredUsage(decode, loads)
    for row in cast(Iterable[PodColumns], rows.pods.values() if pods is None else pods):
        (pk, _ns, version, group_pk, _name, node_pk, phase, _deleting, _prio, _task_name,
         _created, cpu, memory, gpu, _requests, _spec, _labels, annotations, conditions,
         nominated) = row  # fmt: skip
        if node_pk is not None and phase in ACTIVE_PHASES:
            if phase != "Running" or (annotations and SIM_USAGE in annotations):
                measured.correct(node_pk, cpu, memory, phase, annotations)
            held = loads.get(node_pk)
            if held is None:
                loads[node_pk] = [cpu, memory, gpu, 1]
            else:
                held[0] += cpu
                held[1] += memory
                held[2] += gpu
                held[3] += 1
        if group_pk is None:
            # No PodGroup: not the scheduler's to place (the PodGroup controller gives a pod
            # scheduled by Volcano one first), and no job of its own, as in Volcano's cache. A
            # pod holding a node (a finished job's pod whose group is gone, a pod of another
            # scheduler) still takes its node's resources.
            if node_pk is not None:
                occupants.append(
                    pod_task(row, decode, node_names, classes, default_priority, memo, keep)
                )
            continue
        if group_pk not in group_uids:
            # A Completed group with a pod still on a node: read the group too.
            extra = _group_rows("g.id = %s", [group_pk])
            if not extra:
                continue
            job = _job(extra[0], decode, classes, default_priority)
            _known_group(snapshot, extra[0])
            jobs[job.uid], group_uids[group_pk] = job, job.uid
        task = pod_task(row, decode, node_names, classes, default_priority, memo, keep)
        job = jobs[group_uids[group_pk]]
        job.add_task(task)
        # Reused while the row is the same tuple (its group, hence job uid, is in the row).
        same = old_pod_rows.get(pk)
        if same is None or same[0] is not row:
            same = (row, PodRow(pk, version, cpu, memory, gpu, job.uid,
                                task.status == TaskStatus.PENDING, conditions, nominated))  # fmt: skip
        if keep:
            pod_rows[pk] = same
        snapshot.pods[task.uid] = same[1]
    measured.fill(ready_nodes, now)
    snapshot.cluster = ClusterInfo.build(
        now=now,
        nodes=nodes,
        jobs=jobs.values(),
        queues=queues,
        priority_classes=classes,
        default_priority=default_priority,
        occupants=occupants,
        pdbs=tables.pdbs,
        resource_quotas=tables.quotas,
        hypernodes=tables.hypernodes,
    )
    return snapshot


class _Tables(NamedTuple):
    """The small tables a snapshot is built from besides its rows, read whole every session."""

    classes: tuple[tuple[str, int], ...]  # priority class name → value
    default_priority: int
    queues: list[tuple[Any, ...]]  # ``_QUEUE_FIELDS``
    numatopologies: dict[str, NumatopoInfo]  # of Ready nodes, by node name
    pdbs: list[PdbInfo]
    quotas: list[QuotaInfo]
    hypernodes: list[HyperNodeInfo]


def _read_tables(rows: Rows) -> _Tables:
    classes: list[tuple[str, int]] = []
    default_priority = 0
    for name, value, is_default in PriorityClass.objects.values_list(
        "name", "value", "global_default"
    ):
        classes.append((name, value))
        if is_default:
            default_priority = value
    ready = {row[1] for row in rows.nodes.values() if row[3]}
    return _Tables(
        classes=tuple(classes),
        default_priority=default_priority,
        queues=list(Queue.objects.values_list(*_QUEUE_FIELDS)),
        numatopologies=read_numatopologies(ready),
        pdbs=read_pdbs(),
        quotas=read_quotas(),
        hypernodes=hypernode_infos(),
    )


_QUEUE_FIELDS = (
    "name", "weight", "capability", "deserved", "guarantee", "reclaimable", "state", "parent",
    "priority", "created_at", "annotations", "affinity",
)  # fmt: skip


def _queue(row: tuple[Any, ...]) -> QueueInfo:
    (
        name,
        weight,
        capability,
        deserved,
        guarantee,
        reclaimable,
        state,
        parent,
        prio,
        created,
        ann,
        affinity,
    ) = row
    return QueueInfo(
        name=name,
        weight=weight,
        capability=_resource(capability),
        deserved=_resource(deserved),
        guarantee=_resource(guarantee),
        reclaimable=reclaimable,
        state=QueueState(state),
        parent=parent,
        priority=prio,
        creation_timestamp=created,
        annotations=dict(ann or {}),
        affinity=queue_affinity(name, affinity),
    )


_NODE_SQL = """
SELECT id, name, resource_version, ready, CAST(allocatable AS TEXT), CAST(labels AS TEXT),
       CAST(annotations AS TEXT), CAST(taints AS TEXT), unschedulable, CAST(capacity AS TEXT)
FROM {node} n{where}
"""


def _timestamps_in_c(cursor: Any) -> None:
    """PostgreSQL: load ``timestamptz`` with psycopg's C loader on this cursor.

    Why: Django registers a Python subclass of psycopg's loader (to attach its time zone), which
    psycopg cannot swap for its C version; at 10,000 pods and PodGroups that was about 40 ms of
    the read. The connection's time zone is UTC (Django sets it with ``USE_TZ``), so the values
    are the same aware datetimes.
    """
    if connection.vendor == "postgresql":
        from psycopg.types.datetime import TimestamptzLoader

        cursor.cursor.adapters.register_loader("timestamptz", TimestamptzLoader)


def _node_rows(where: str = "", params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    """Return node rows (alias ``n``, ``where`` if given) by raw SQL, JSON as text."""
    with connection.cursor() as cursor:
        cursor.execute(
            _NODE_SQL.format(node=Node._meta.db_table, where=f" WHERE {where}" if where else ""),
            params,
        )
        return list(cursor.fetchall())


def _node(
    name: str,
    allocatable: dict[str, int],
    labels: dict[str, str],
    annotations: dict[str, str],
    taints: list[dict[str, str]],
    unschedulable: bool,
    capacity: dict[str, int] | None = None,
) -> NodeInfo:
    return NodeInfo(
        name=name,
        allocatable=Resource({k: int(v) for k, v in (allocatable or {}).items()}),
        labels=dict(labels or {}),
        annotations=dict(annotations or {}),
        taints=tuple(
            Taint(str(t.get("key", "")), str(t.get("value", "")), str(t.get("effect", "")))
            for t in taints or ()
        ),
        unschedulable=unschedulable,
        # status.capacity: gpushare reads its cards there.
        capacity=Resource({k: int(v) for k, v in capacity.items()}) if capacity else None,
    )


_GROUP_SQL = """
SELECT g.id, g.namespace, g.name, g.resource_version, g.min_member,
       CAST(g.min_task_member AS TEXT), CAST(g.min_resources AS TEXT), g.queue,
       g.priority_class_name, g.phase, CAST(g.conditions AS TEXT), {created},
       CAST(g.annotations AS TEXT), g.running, g.succeeded, g.failed, CAST(g.labels AS TEXT),
       CAST(g.network_topology AS TEXT), CAST(g.sub_group_policy AS TEXT)
FROM {group} g WHERE {where}
"""


def _group_rows(where: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    """Return PodGroup rows by raw SQL, JSON as text (Django's converters cost 0.3 s per 10,000)."""
    with connection.cursor() as cursor:
        _timestamps_in_c(cursor)
        cursor.execute(
            _GROUP_SQL.format(group=PodGroup._meta.db_table, where=where, created=_created_at("g")),
            params,
        )
        return list(cursor.fetchall())


def _live_group_rows(where: str = "", params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    """Return the rows of PodGroups not Completed (alias ``g``, ``where`` if given)."""
    live = "g.phase <> 'Completed'"
    return _group_rows(f"{live} AND ({where})" if where else live, params)


def _known_group(snapshot: Snapshot, row: tuple[Any, ...]) -> None:
    """Note a PodGroup row's version and status as read, for apply's stale-row refusal."""
    pk, ns, name, version, *_, phase, conds_text = row[:11]
    running, succeeded, failed = row[13:16]
    uid = f"{ns}/{name}"
    snapshot.pod_groups[uid] = (pk, version, phase, running, succeeded, failed)
    snapshot.pod_group_conditions[uid] = conds_text


def _job(
    row: tuple[Any, ...],
    decode: Decoder,
    classes: dict[str, int],
    default_priority: int,
) -> JobInfo:
    _pk, ns, name, _version, min_member, task_min_text, min_res_text, queue, class_name, *rest = row
    phase, conds_text, created, annotations_text, _running, _succeeded, _failed, *rest = rest
    labels_text, topology_text, sub_groups_text = rest
    task_min: dict[str, Any] = decode(task_min_text) or {}
    conds: list[dict[str, Any]] = decode(conds_text) or []
    annotations: dict[str, str] = decode(annotations_text) or {}
    uid = f"{ns}/{name}"
    return JobInfo(
        name=name,
        namespace=ns,
        queue=queue,
        min_available=min_member,
        task_min_available={str(k): int(v) for k, v in task_min.items()},
        min_resources=_resource(scheduling_quantities(decode(min_res_text) or {})),
        # As the job controller writes them, quota names included (requests.cpu, count/pods):
        # resourcequota reads them all, the rest of the engine only the scheduling names.
        quota_min_resources=_resource(decode(min_res_text)),
        priority_class_name=class_name,
        priority=classes.get(class_name, default_priority),
        creation_timestamp=aware(created),
        phase=PodGroupPhase(phase),
        conditions=[
            PodGroupCondition(
                type=str(c.get("type", "")),
                status=str(c.get("status", "")),
                reason=str(c.get("reason", "")),
                message=str(c.get("message", "")),
                transition_id=str(c.get("transitionID", "")),
            )
            for c in conds
        ],
        annotations=dict(annotations),
        labels=dict(decode(labels_text) or {}),
        uid=uid,
        network_topology=job_network_topology(uid, decode(topology_text)),
        sub_group_policy=job_sub_group_policy(uid, decode(sub_groups_text)),
    )


# Each column's SQL, by name; ``_POD_SQL`` selects them in ``PodColumns``' order.
_POD_SELECT = {
    "pk": "p.id",
    "namespace": "p.namespace",
    "resource_version": "p.resource_version",
    "pod_group_pk": "p.pod_group_id",
    "name": "p.name",
    "node_pk": "p.node_id",
    "phase": "p.phase",
    "deleting": "CASE WHEN p.deletion_time IS NULL THEN 0 ELSE 1 END",
    "priority": "p.priority",
    "task_name": "p.task_name",
    "created": "{created}",
    "cpu": "p.cpu_milli",
    "memory": "p.memory_milli",
    "gpu": "p.gpu_milli",
    "requests": "CAST(p.requests AS TEXT)",
    "spec": "CAST(p.spec AS TEXT)",
    "labels": "{labels}",
    "annotations": "CAST(p.annotations AS TEXT)",
    "conditions": "CAST(p.conditions AS TEXT)",
    "nominated": "p.nominated_node_name",
}
_POD_SQL = f"""
SELECT {", ".join(_POD_SELECT[column] for column in PodColumns._fields)}
FROM {{pod}} p LEFT JOIN {{group}} g ON g.id = p.pod_group_id
WHERE (g.phase <> 'Completed' OR p.phase IN ('Pending', 'Running')){{where}}
"""


def _pod_rows(where: str = "", params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    """Return pod rows (alias ``p``, ``where`` if given) by raw SQL, as plain tuples in
    ``PodColumns``' order: Django's per-row converters cost seconds at 50,000 pods."""
    sql = _POD_SQL.format(
        pod=Pod._meta.db_table,
        group=PodGroup._meta.db_table,
        created=_created_at("p"),
        labels=_labels_but_index("p"),
        where=f" AND ({where})" if where else "",
    )
    with connection.cursor() as cursor:
        _timestamps_in_c(cursor)
        cursor.execute(sql, params)
        return list(cursor.fetchall())


def _pod_batches(stats: ReadStats) -> Iterator[tuple[Any, ...]]:
    """Yield every pod row read, fetched 5,000 at a time (counted in ``stats.fetched``)."""
    sql = _POD_SQL.format(
        pod=Pod._meta.db_table,
        group=PodGroup._meta.db_table,
        created=_created_at("p"),
        labels=_labels_but_index("p"),
        where="",
    )
    with connection.cursor() as cursor:
        _timestamps_in_c(cursor)
        # In key order, as the row cache holds them: a read then builds the same snapshot
        # whichever way it got its rows (PostgreSQL's own order moves a row when it is written).
        cursor.execute(sql + " ORDER BY p.id")
        while batch := cursor.fetchmany(5000):
            stats.fetched += len(batch)
            yield from batch


def _labels_but_index(alias: str) -> str:
    """The pod labels column as text, without the ``volcano.sh/task-index`` label.

    Volcano's controller labels every replica with its index; read as is, each replica would
    have labels of its own and a task of 1,000 pods 1,000 templates, where the engine caches
    predicate answers per template. So the snapshot leaves the index out: pods of one task keep
    sharing one template, and a selector on the index label matches no pod in the engine (the
    only difference from Volcano's scheduler, which sees it).
    """
    if connection.vendor == "postgresql":
        return f"CAST({alias}.labels - '{TASK_INDEX_LABEL}' AS TEXT)"
    return f"""json_remove({alias}.labels, '$."{TASK_INDEX_LABEL}"')"""


def _created_at(alias: str) -> str:
    """The creation time column as the read wants it: SQLite's as ISO text with its zone.

    SQLite stores UTC text without a zone. Read as is, Django's converter parses each value in
    Python and ``_aware`` then attaches UTC: two calls per row, 20,000 for 10,000 one-pod
    jobs. With ``+00:00`` appended in the query (an expression, so no converter runs),
    ``datetime.fromisoformat`` makes the aware value in one C call. PostgreSQL's column is
    loaded by psycopg's C loader (``_timestamps_in_c``).
    """
    if connection.vendor == "postgresql":
        return f"{alias}.created_at"
    return f"{alias}.created_at || '+00:00'"
