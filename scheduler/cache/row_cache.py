"""The snapshot's big tables (nodes, PodGroups, pods) as rows, kept between sessions.

Volcano's counterpart: the scheduler cache itself, which informers keep up to date so that each
``Snapshot()`` clones memory instead of listing the API server. Here the worker keeps the rows
the last read fetched (``RowCache``) and, inside the next read's transaction, fetches only the
rows the change stream (``kube.changes``) says were written since: every write of a served
object records a change event whose id is the row's new ``resourceVersion``, and writers commit
in id order (PostgreSQL: the writers' advisory lock; SQLite: one writer), so the events a read
transaction sees are every write its rows reflect.

1. The position: the newest event the last read saw, with its kind, object and time, so that an
   event that no longer exists (pruned past it, rolled back, a database emptied and refilled)
   is noticed.
2. If the stream cannot answer (no position yet, the position's event gone or changed, more
   changes than ``max_changes``), every row is fetched again: a full read. So is every
   ``full_every``-th read, so that a write that bypassed the stream (a bug) is not kept for long.
3. Otherwise the changed rows are fetched by primary key (a creation's event is recorded before
   the row has one: those by namespace and name): a changed node or PodGroup row, and every pod
   that changed or whose PodGroup did (a group's phase decides whether its finished pods are
   read at all). A row no longer there (deleted, or no longer read) leaves the cache.

The rows are the same tuples a full read gets (``snapshot._read`` builds the ``ClusterInfo``
from them either way), held in primary-key order, so an incremental read builds exactly what a
full read of the same database would; what the snapshot works out from a row (a task's fields,
a node's parts) is kept beside it (``Rows.memo``) and reused while the row is the same tuple.
The small tables (queues, priority classes, budgets,
quotas, HyperNodes, Numatopologies) are read whole each session: a few hundred rows at most.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from django.db import connection

from core.models import Node, Pod
from kube.changes import model_label
from kube.models import ChangeEvent
from kube.pg_arrays import int_array
from queues.models import PodGroup

__all__ = ["ReadStats", "RowCache", "Rows", "by_pk"]

# A row fetcher: (extra SQL condition, its params) → rows whose first column is the pk.
Fetch = Callable[[str, list[Any]], list[tuple[Any, ...]]]


@dataclass(slots=True)
class ReadStats:
    """How the last read got its rows: ``full`` or ``incremental``, why, and how many changed."""

    mode: str = "full"
    reason: str = "first read"
    changes: int = 0  # change events of the three kinds since the last read
    fetched: int = 0  # rows fetched (every row on a full read)
    seconds: float = 0.0  # wall time of the rows' part (the change stream and the fetches)
    cpu_seconds: float = 0.0  # this process's CPU time of it
    # Nothing changed and the snapshot handed out is a copy of the one kept (``quiet_reads``)
    copied: bool = False


@dataclass(slots=True)
class Changes:
    """What the change stream says was written since the last read, by primary key or name."""

    nodes: set[int] = field(default_factory=set)
    groups: set[int] = field(default_factory=set)
    pods: set[int] = field(default_factory=set)
    nodes_named: set[tuple[str, str]] = field(default_factory=set)  # (namespace, name)
    groups_named: set[tuple[str, str]] = field(default_factory=set)
    pods_named: set[tuple[str, str]] = field(default_factory=set)

    def count(self) -> int:
        """Return how many rows the events name."""
        return sum(len(getattr(self, name)) for name in self.__slots__)


@dataclass(slots=True)
class Rows:
    """The rows one read builds its snapshot from, each dict in primary-key order."""

    nodes: dict[int, tuple[Any, ...]]
    groups: dict[int, tuple[Any, ...]]  # PodGroups not Completed
    pods: dict[int, tuple[Any, ...]]  # pods of such groups, or still Pending or Running
    # What the snapshot worked out from these rows and may reuse while a row is unchanged
    # (``row_memo``: the tasks, nodes and texts decoded): kept with the rows, so a full read drops it.
    memo: dict[str, Any] = field(default_factory=dict)


class RowCache:
    """Rows kept from one session's read to the next, brought up to date from the change stream.

    Use one per worker process; ``lock`` keeps two reads from patching it at once (the loser
    reads in full, without the cache).
    """

    def __init__(
        self, *, max_changes: int = 20000, max_share: float = 0.25, full_every: int = 600
    ) -> None:
        # More changes than ``max_changes`` or ``max_share`` of the rows held: read in full
        # (fetching most rows by key costs more than fetching them all in one scan).
        self.max_changes = max_changes
        self.max_share = max_share
        # Every ``full_every``-th read is a full one all the same: a write that reached the
        # database without a change event (a bug) is then seen within that many sessions.
        self.full_every = full_every
        self.reads = 0
        self.lock = threading.Lock()
        self.rows: Rows | None = None
        self.position: tuple[int, str, int, str] | None = None  # id, kind, object pk, time
        self.stats = ReadStats()

    def clear(self) -> None:
        """Forget every row: the next read is a full one."""
        self.rows, self.position = None, None

    def refresh(self, fetch_nodes: Fetch, fetch_groups: Fetch, fetch_pods: Fetch) -> Rows:
        """Return the rows as this transaction sees them, fetching only what changed if it can.

        Call inside the read transaction; the fetchers run the snapshot's own queries with an
        extra condition (``""`` for every row).
        """
        started, cpu_started = time.perf_counter(), time.process_time()
        head = _newest_event()
        self.reads += 1
        reason = self._why_full(head)
        changed = Changes()
        if reason is None:
            assert self.position is not None
            changed, reason = self._changes_since(self.position[0])
        if reason is not None or self.rows is None:
            self.rows = _full(fetch_nodes, fetch_groups, fetch_pods)
            self.stats = ReadStats(
                "full", reason or "first read", 0,
                len(self.rows.nodes) + len(self.rows.groups) + len(self.rows.pods),
            )  # fmt: skip
        else:
            fetched = _patch(self.rows, changed, fetch_nodes, fetch_groups, fetch_pods)
            self.stats = ReadStats("incremental", "", changed.count(), fetched)
        self.position = head
        self.stats.seconds = time.perf_counter() - started
        self.stats.cpu_seconds = time.process_time() - cpu_started
        return self.rows

    def _why_full(self, head: tuple[int, str, int, str] | None) -> str | None:
        if self.rows is None or self.position is None:
            return "first read"
        if self.reads % self.full_every == 0:
            return f"every {self.full_every}th read is full"
        if head is None:
            return "no change events"
        if head[0] < self.position[0]:
            return "change stream restarted"
        if head[0] == self.position[0]:
            return None if head == self.position else "change stream restarted"
        if _event(self.position[0]) != self.position:
            return "change stream pruned or rolled back past the last read"
        return None

    def _changes_since(self, position: int) -> tuple[Changes, str | None]:
        assert self.rows is not None
        held = len(self.rows.nodes) + len(self.rows.groups) + len(self.rows.pods)
        limit = min(self.max_changes, max(1000, int(held * self.max_share)))
        kinds = {model_label(Node): "nodes", model_label(PodGroup): "groups",
                 model_label(Pod): "pods"}  # fmt: skip
        table = connection.ops.quote_name(ChangeEvent._meta.db_table)
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT kind, object_pk, namespace, name FROM {table} "
                "WHERE id > %s AND kind IN (%s, %s, %s) LIMIT %s",
                [position, *kinds, limit + 1],
            )
            events = cursor.fetchall()
        if len(events) > limit:
            return Changes(), f"more than {limit} changes"
        changes = Changes()
        for kind, pk, namespace, name in events:
            if pk:
                getattr(changes, kinds[kind]).add(pk)
            else:  # a row's creation is recorded before it has a pk: found by its name
                getattr(changes, f"{kinds[kind]}_named").add((namespace, name))
        return changes, None


def _newest_event() -> tuple[int, str, int, str] | None:
    table = connection.ops.quote_name(ChangeEvent._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id, kind, object_pk, CAST(created_at AS TEXT) FROM {table} "
            "ORDER BY id DESC LIMIT 1"
        )
        row = cursor.fetchone()
    return None if row is None else (int(row[0]), str(row[1]), int(row[2]), str(row[3]))


def _event(event_id: int) -> tuple[int, str, int, str] | None:
    table = connection.ops.quote_name(ChangeEvent._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id, kind, object_pk, CAST(created_at AS TEXT) FROM {table} WHERE id = %s",
            [event_id],
        )
        row = cursor.fetchone()
    return None if row is None else (int(row[0]), str(row[1]), int(row[2]), str(row[3]))


def by_pk(rows: Iterable[tuple[Any, ...]]) -> dict[int, tuple[Any, ...]]:
    """Return ``rows`` keyed by their first column, in key order."""
    out = {row[0]: row for row in rows}
    keys = list(out)
    if any(a > b for a, b in pairwise(keys)):
        out = {pk: out[pk] for pk in sorted(keys)}
    return out


def _full(fetch_nodes: Fetch, fetch_groups: Fetch, fetch_pods: Fetch) -> Rows:
    return Rows(
        nodes=by_pk(fetch_nodes("", [])),
        groups=by_pk(fetch_groups("", [])),
        pods=by_pk(fetch_pods("", [])),
    )


def _keyed(column: str, pks: Iterable[int]) -> tuple[str, list[Any]]:
    """A condition ``<column> IN <pks>``, the pks as one parameter (no list of 50,000)."""
    keys = sorted(pks)
    if connection.vendor == "postgresql":
        return f"{column} IN (SELECT unnest(%s::bigint[]))", [int_array(keys)]
    return f"{column} IN (SELECT value FROM json_each(%s))", [json.dumps(keys)]


def _named(
    alias: str, names: Iterable[tuple[str, str]], *, namespaced: bool = True
) -> tuple[str, list[Any]]:
    """A condition: the row's (namespace, name), or name, is one of ``names``."""
    pairs = sorted(names)
    if not namespaced:
        if connection.vendor == "postgresql":
            return f"{alias}.name IN (SELECT unnest(%s::text[]))", [[n for _, n in pairs]]
        return f"{alias}.name IN (SELECT value FROM json_each(%s))", [
            json.dumps([n for _, n in pairs])
        ]
    if connection.vendor == "postgresql":
        return (
            f"({alias}.namespace, {alias}.name) IN (SELECT * FROM unnest(%s::text[], %s::text[]))",
            [[ns for ns, _ in pairs], [n for _, n in pairs]],
        )
    return (
        f"({alias}.namespace, {alias}.name) IN "
        "(SELECT value ->> 0, value ->> 1 FROM json_each(%s))",
        [json.dumps(pairs)],
    )


def _each(fetch: Fetch, *conditions: tuple[str, list[Any]] | None) -> list[tuple[Any, ...]]:
    """Return the rows meeting any of ``conditions`` (None: left out), each row once.

    One query per condition: an ``OR`` of key lists is planned as a scan of the whole table
    (200,000 pods) where each condition alone follows its index.
    """
    rows: dict[Any, tuple[Any, ...]] = {}
    for condition in conditions:
        if condition is not None:
            rows.update((row[0], row) for row in fetch(*condition))
    return list(rows.values())


def _patch(
    rows: Rows, changed: Changes, fetch_nodes: Fetch, fetch_groups: Fetch, fetch_pods: Fetch
) -> int:
    """Replace the changed rows of ``rows`` with what the database holds now; return how many."""
    fetched = 0
    if changed.nodes or changed.nodes_named:
        fresh = _each(
            fetch_nodes,
            _keyed("n.id", changed.nodes) if changed.nodes else None,
            _named("n", changed.nodes_named, namespaced=False) if changed.nodes_named else None,
        )
        fetched += len(fresh)
        rows.nodes = _merged(rows.nodes, changed.nodes | {r[0] for r in fresh}, fresh)
    groups = set(changed.groups)
    if groups or changed.groups_named:
        fresh = _each(
            fetch_groups,
            _keyed("g.id", groups) if groups else None,
            _named("g", changed.groups_named) if changed.groups_named else None,
        )
        fetched += len(fresh)
        groups |= {r[0] for r in fresh}
        rows.groups = _merged(rows.groups, groups, fresh)
    pods = set(changed.pods)
    if groups:
        # A group's phase decides whether its finished pods are read: read its pods again.
        pods |= {pk for pk, row in rows.pods.items() if row[3] in groups}
    if pods or groups or changed.pods_named:
        fresh = _each(
            fetch_pods,
            _keyed("p.id", pods) if pods else None,
            _named("p", changed.pods_named) if changed.pods_named else None,
            _keyed("p.pod_group_id", groups) if groups else None,
        )
        fetched += len(fresh)
        rows.pods = _merged(rows.pods, pods | {r[0] for r in fresh}, fresh)
    return fetched


def _merged(
    held: dict[int, tuple[Any, ...]], changed: set[int], fresh: list[tuple[Any, ...]]
) -> dict[int, tuple[Any, ...]]:
    """Return ``held`` without the ``changed`` pks, plus the ``fresh`` rows, in key order."""
    for pk in changed:
        held.pop(pk, None)
    if not fresh:
        return held
    last = next(reversed(held), None) if held else None
    new = sorted(fresh, key=_first)
    if last is None or new[0][0] > last:
        held.update((row[0], row) for row in new)
        return held
    return by_pk([*held.values(), *new])


def _first(row: tuple[Any, ...]) -> Any:
    return row[0]
