"""Each node's load as the last session left it, stored on the node rows for the Nodes pages.

Why stored: the Nodes list and its heat map show every node's allocated resources, the
requests of its Pending and Running pods. Summing them on render is one ``GROUP BY`` over
every live pod (``pods.node`` is deliberately unindexed): 50,000 pods cost the first render
after each change 150 ms and more. The worker already holds those sums: the snapshot read
adds up every active pod per node, Ready or not (``Snapshot.loads``), and the session's binds
that took are added here. So after each session the worker writes the figures that moved
onto their node rows (``load_cpu`` … ``load_pods``, one set-based UPDATE, no resourceVersion
bump: it is status, like ``Queue.share_status``) and stamps the time (``NodeLoadStamp``).

Staleness: at most one session. What changed after the snapshot was read (a pod finished
or killed, a bind by another writer) shows at the next session's store. While the stamp is
fresh (``VOLCANO_NODE_LOADS_FRESH`` seconds, default the larger of 10 s and five schedule
periods) the pages read the stored figures; when it is not (no worker running, a fresh
database) ``stored_loads`` answers None and the pages sum the pods themselves, so a stopped
scheduler never leaves them silently wrong.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from core.models import Node, NodeLoadStamp
from kube.pg_arrays import int_array
from scheduler.cache.apply import ApplyResult
from scheduler.cache.snapshot import Snapshot
from scheduler.engine.framework.decisions import Decisions

__all__ = [
    "LOAD_COLUMNS",
    "NodeLoads",
    "fresh_for",
    "fresh_stamp",
    "loads_fresh",
    "read_stored_loads",
    "session_loads",
    "store_node_loads",
    "stored_loads",
]

LOAD_COLUMNS = ("load_cpu", "load_memory", "load_gpu", "load_pods")
# node pk → (cpu, memory, gpu milli-units, pod count)
NodeLoads = dict[int, tuple[int, int, int, int]]


def session_loads(snapshot: Snapshot, decisions: Decisions, applied: ApplyResult) -> NodeLoads:
    """Return each node's load after the session: as read, plus the binds that were written.

    Evictions change no load yet: an evicted pod holds its node (Running, being deleted)
    until the runtime stops it, and the pages count it until then too.
    """
    loads = {pk: list(held) for pk, held in snapshot.loads.items()}
    refused = set(applied.skipped_binds)
    for task, node_name in decisions.binds.items():
        pod, node = snapshot.pods.get(task), snapshot.nodes.get(node_name)
        if task in refused or pod is None or node is None:
            continue
        held = loads.setdefault(node[0], [0, 0, 0, 0])
        held[0] += pod.cpu
        held[1] += pod.memory
        held[2] += pod.gpu
        held[3] += 1
    return {pk: (held[0], held[1], held[2], held[3]) for pk, held in loads.items()}


def store_node_loads(loads: Mapping[int, tuple[int, int, int, int]], *, now: datetime) -> int:
    """Write ``loads`` onto the node rows whose stored figures differ; return how many.

    A node missing from ``loads`` holds nothing. One read of the stored columns, one UPDATE
    of the changed rows (their pks and figures as one parameter), then the stamp.
    """
    table = connection.ops.quote_name(Node._meta.db_table)
    empty = (0, 0, 0, 0)
    with transaction.atomic(), connection.cursor() as cursor:  # one commit for all of it
        cursor.execute(f"SELECT id, {', '.join(LOAD_COLUMNS)} FROM {table}")
        changed = [
            (pk, *new)
            for pk, *old in cursor.fetchall()
            if tuple(old) != (new := loads.get(pk, empty))
        ]
        if changed:
            _update(cursor, table, changed)
        if NodeLoadStamp.objects.filter(pk=1).update(stored_at=now) == 0:
            NodeLoadStamp.objects.create(pk=1, stored_at=now)
    return len(changed)


def _update(cursor: Any, table: str, rows: Sequence[tuple[int, ...]]) -> None:
    """One UPDATE of every changed row (PostgreSQL: arrays; SQLite: one JSON parameter)."""
    sets = ", ".join(f"{name} = v.c{i}" for i, name in enumerate(LOAD_COLUMNS))
    if connection.vendor == "postgresql":
        columns = list(zip(*rows, strict=True))
        arrays = ", ".join(["%s::bigint[]"] * 5)
        sql = (
            f"UPDATE {table} AS t SET {sets} FROM unnest({arrays}) AS v(id, c0, c1, c2, c3) "
            "WHERE t.id = v.id"
        )
        cursor.execute(sql, [int_array(c) for c in columns])
        return
    picks = ", ".join(f"value ->> {i} AS {n}" for i, n in enumerate(("id", "c0", "c1", "c2", "c3")))
    cursor.execute(
        f"WITH v AS MATERIALIZED (SELECT {picks} FROM json_each(%s)) "
        f"UPDATE {table} AS t SET {sets} FROM v WHERE t.id = v.id",
        [json.dumps(rows)],
    )


def fresh_for() -> float:
    """Return how many seconds stored loads are trusted (``VOLCANO_NODE_LOADS_FRESH``)."""
    value = getattr(settings, "VOLCANO_NODE_LOADS_FRESH", None) or os.environ.get(
        "VOLCANO_NODE_LOADS_FRESH"
    )
    if value not in (None, ""):
        return float(value)  # type: ignore[arg-type]
    period = getattr(settings, "VOLCANO_SCHEDULE_PERIOD", None) or os.environ.get(
        "VOLCANO_SCHEDULE_PERIOD"
    )
    return max(10.0, 5 * float(period or 1.0))


def fresh_stamp(*, now: datetime | None = None) -> datetime | None:
    """Return when the loads were stored, if recently enough to show them (else None)."""
    stamp = NodeLoadStamp.objects.filter(pk=1).values_list("stored_at", flat=True).first()
    now = now or timezone.now()
    if stamp is None or stamp < now - timedelta(seconds=fresh_for()):
        return None
    return stamp


def loads_fresh(*, now: datetime | None = None) -> bool:
    """Return whether the stored loads may be shown (stamped within ``fresh_for()``)."""
    return fresh_stamp(now=now) is not None


def read_stored_loads() -> NodeLoads:
    """Return every node's stored load by pk (nodes holding nothing left out, as in the
    pages' ``GROUP BY``), fresh or not."""
    rows = Node.objects.filter(load_pods__gt=0).order_by().values_list("pk", *LOAD_COLUMNS)
    return {pk: (cpu, memory, gpu, pods) for pk, cpu, memory, gpu, pods in rows}


def stored_loads(*, now: datetime | None = None) -> NodeLoads | None:
    """Return every node's stored load by pk, or None when they are not fresh."""
    if not loads_fresh(now=now):
        return None
    return read_stored_loads()
