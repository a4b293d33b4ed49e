"""Binds sent to PostgreSQL while the session still runs, in the transaction that then writes the rest.

Volcano's counterpart: the cache's binder. When allocate commits a job's statement, Volcano hands
its binds to the cache, which sends them to the API server while the session goes on to the next
job. Here the engine tells a ``BindPipeline`` of each bind (``run_session(bind_listener=…)``) and,
each time a batch has gathered, the batch's statements go to PostgreSQL in pipeline mode: sent
without waiting for an answer, so the database locks the nodes and writes the pods (with their
change events and ``Scheduled`` Events) in its own process while the engine decides the next
binds in this one. For 10,000 one-pod jobs that takes the binds' database time (0.15-0.2 s) off
the session's critical path. There is no second thread: a thread would have to win the
interpreter lock back from the engine after every round trip, and lost more than it gained.

Nothing is committed early. The statements run in the session's one transaction; ``finish``
reads their answers and checks them as ``binds.write_binds`` would have before writing:

- every target node was still Ready, schedulable and at the snapshot's version when locked
  (all of the snapshot's nodes are locked with the first batch);
- no node holds more than its allocatable once the binds are in (the nodes stay locked, so no
  other scheduler can bind to them meanwhile);
- every pod was written (none changed since the snapshot).

If all hold, it writes everything else (``write(bound)``: evictions, pending pods, PodGroups,
queues) in the same transaction. If any does not, the streamed binds are rolled back to their
savepoint and ``write(None)`` binds the whole session the usual way, where a gang is refused whole
(a job's binds can span two batches, so only that way does a refused job stay unbound in every
part). A session that raises, or loses its lease, rolls every streamed bind back.

Sessions with fewer than ``batch`` binds, and SQLite (whose work runs in this process, under the
same interpreter lock), send nothing early and write as before. The price of sending early: from
the first batch to the commit, the transaction holds the change stream's writers' lock and the
target nodes' row locks, which other writers wait for, for the rest of the engine's run.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from datetime import datetime
from types import TracebackType
from typing import Any, TypeVar

from django.db import connection, transaction

from core.models import Node, Pod
from core.row_events import RowEvents
from scheduler.cache.binds import (
    BIND_COLUMNS,
    BIND_WHERE,
    NODE_COLUMNS,
    bind_row,
    node_loads,
    usable_nodes,
)
from scheduler.cache.pod_status import PodStatusWriter
from scheduler.cache.rows import keyed_rows, send_rows
from scheduler.cache.snapshot import Snapshot

__all__ = ["DEFAULT_BATCH", "BindPipeline"]

DEFAULT_BATCH = 1000
logger = logging.getLogger(__name__)
T = TypeVar("T")


class _AbandonedError(Exception):
    """The session ended without ``finish``: what was sent is rolled back."""


class BindPipeline:
    """Send a session's binds as the engine decides them; ``finish`` checks them and commits.

    Use as a context manager around the session: leaving it without ``finish`` (the engine
    raised) rolls back whatever was sent. ``add`` is the engine's ``BindListener``.
    """

    def __init__(self, snapshot: Snapshot, *, now: datetime, batch: int = DEFAULT_BATCH) -> None:
        self._snapshot = snapshot
        self._pods = PodStatusWriter(now)
        self._events = RowEvents("Pod", "Scheduled", now)
        self._batch = batch if connection.vendor == "postgresql" else 0
        self._pending: dict[str, str] = {}
        self._atomic: Any = None  # the session's transaction, once something was sent
        self._pipeline: Any = None
        self._savepoint = ""
        self._nodes: Any = None  # the cursor of the nodes' lock
        self._targets: set[int] = set()  # pks of the nodes binds were sent to
        self._pod_cursors: list[Any] = []
        self._sent_pks: set[int] = set()
        self.sent = 0  # binds sent early
        self.fell_back = False  # a check failed: the whole session was bound the usual way

    def __enter__(self) -> BindPipeline:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._atomic is None:  # nothing sent, or ``finish`` ran
            return
        atomic, self._atomic = self._atomic, None
        if exc is None:
            kind, exc = _AbandonedError, _AbandonedError("the session ended without finish")
        try:
            self._end_pipeline(kind, exc, tb)
        except Exception:  # the session's own exception is the one raised; this one is logged
            logger.warning("bind pipeline: a sent statement failed as well", exc_info=True)
        finally:
            atomic.__exit__(kind, exc, tb)  # rolls back

    def add(self, task: str, node: str) -> None:
        """Take one bind decision; send a full batch."""
        if not self._batch or self.fell_back:
            return
        self._pending[task] = node
        if len(self._pending) >= self._batch:
            self._send()

    def finish(self, write: Callable[[int | None], T]) -> T:
        """Check what was sent, then ``write(bound)`` in the same transaction, and commit.

        ``bound`` is how many binds were written early (all of the session's), or None when
        none were (nothing was sent, or a check failed): ``write`` then binds them itself.
        """
        if self._atomic is None:
            return write(None)
        atomic, self._atomic = self._atomic, None
        try:
            if self._pending and not self.fell_back:
                self._send_batch()
            self._end_pipeline(None, None, None)
            bound = None if self.fell_back else self._check()
            if bound is None:
                transaction.savepoint_rollback(self._savepoint)
                self.fell_back = True
            else:
                transaction.savepoint_commit(self._savepoint)
            value = write(bound)
        except BaseException:
            kind, exc, tb = sys.exc_info()
            try:
                self._end_pipeline(kind, exc, tb)
            finally:
                atomic.__exit__(kind, exc, tb)  # rolls back
            raise
        atomic.__exit__(None, None, None)  # commits
        return value

    # --- sending -------------------------------------------------------------------------------
    def _send(self) -> None:
        if self._atomic is None:
            atomic = transaction.atomic()
            atomic.__enter__()
            try:
                self._savepoint = transaction.savepoint() or ""
                connection.ensure_connection()
                self._pipeline = connection.connection.pipeline()
                self._pipeline.__enter__()
                self._lock_nodes()
            except BaseException:
                atomic.__exit__(*sys.exc_info())
                raise
            self._atomic = atomic
        self._send_batch()

    def _send_batch(self) -> None:
        batch, self._pending = self._pending, {}
        snapshot = self._snapshot
        rows: list[tuple[Any, ...]] = []
        targets: set[int] = set()
        for task, node in batch.items():
            pod, known = snapshot.pods.get(task), snapshot.nodes.get(node)
            if pod is None or known is None:  # not from this snapshot: write_binds refuses it
                self.fell_back = True
                return
            targets.add(known[0])
            rows.append(bind_row(task, node, known[0], pod, self._pods))
        self._targets |= targets
        self._pod_cursors.extend(
            send_rows(Pod, BIND_COLUMNS, rows, where=BIND_WHERE, events=self._events)
        )
        self._sent_pks.update(row[0] for row in rows)
        self.sent += len(rows)

    def _lock_nodes(self) -> None:
        """Lock every node of the snapshot, before anything else (checked at ``finish``).

        All of them, once: the nodes a later batch binds to are not known yet, and locking them
        then, while holding the change stream's writers' lock, would take the two locks in the
        opposite order from every other writer (a node's row, then the writers' lock).
        """
        pks = sorted(pk for pk, _ in self._snapshot.nodes.values())
        sql, params = keyed_rows(Node._meta.db_table, pks, NODE_COLUMNS)
        self._nodes = connection.cursor()
        self._nodes.execute(sql + " ORDER BY t.id FOR UPDATE OF t", params)

    def _end_pipeline(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Leave pipeline mode: wait for every statement sent (raising the first error)."""
        pipeline, self._pipeline = self._pipeline, None
        if pipeline is not None:
            pipeline.__exit__(kind, exc, tb)

    # --- checking ------------------------------------------------------------------------------
    def _check(self) -> int | None:
        """Return how many binds took, or None if a check fails (see the module's list)."""
        usable = usable_nodes(self._snapshot, self._nodes.fetchall())
        limits = {pk: usable[pk] for pk in self._targets if pk in usable}
        if len(limits) != len(self._targets):  # a target node changed, or its row is gone
            return None
        written: set[int] = set()
        for cursor in self._pod_cursors:
            written.update(row[0] for row in cursor.fetchall())
        if written != self._sent_pks:  # a pod changed since the snapshot
            return None
        for node_id, *load in node_loads():
            limit = limits.get(node_id)
            if limit is not None and any(
                amount > cap for amount, cap in zip(load, limit, strict=True) if amount
            ):
                return None
        return len(written)
