"""One lock order for every writer on PostgreSQL: the writers' lock first, then rows.

The change stream serialises writers of served objects with a transaction-scoped advisory
lock (``changes.serialise_writers``) so that resourceVersions commit in order. Writers took it
at their first change event, which some took after locking rows (an API update locks its
object, then saves it; the simulated kubelet updates pods, then records them) and others
before (a session's apply reserves versions, then updates pods). Two of them could each hold
what the other waited for: PostgreSQL's ``deadlock detected``, a 500 to an API client.

So every statement that locks or writes a served object's table takes the writers' lock
first, once per transaction (a database execute wrapper; the lock is re-entrant, and the
transaction's outermost ``Atomic`` marks that it is held). Outside a transaction a statement
is its own transaction and needs nothing. A transaction that still fails with a transient
error (deadlock, serialization failure) is retried whole by ``retry_transient``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.db import OperationalError, connection

from kube import registry
from kube.changes import _ADVISORY_LOCK_KEY, deferring_creates, served_models
from kube.models import ChangeEvent

__all__ = ["TRANSIENT_CODES", "install", "is_transient", "retry_transient"]

logger = logging.getLogger(__name__)
T = TypeVar("T")

TRANSIENT_CODES = frozenset({"40P01", "40001"})  # deadlock_detected, serialization_failure
_WRITES = ("INSERT", "UPDATE", "DELETE", "WITH")
# The quoted tables of the served kinds, at the registry's revision they were read at.
_tables: tuple[int, tuple[str, ...]] = (-1, ())


def _served_tables() -> tuple[str, ...]:
    global _tables
    revision, tables = _tables
    if revision != registry.revision():
        models: list[Any] = [*served_models(), ChangeEvent]
        tables = tuple(f'"{m._meta.db_table}"' for m in models)
        _tables = (registry.revision(), tables)
    return tables


def _needs_writers_lock(sql: str) -> bool:
    head = sql.lstrip()[:6].upper()
    writes = head.startswith(_WRITES) or " FOR UPDATE" in sql
    return writes and any(table in sql for table in _served_tables())


def _wrapper(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
    conn = context["connection"]
    if (
        conn.in_atomic_block
        and conn.atomic_blocks
        and _needs_writers_lock(sql)
        # A new row no other transaction sees: nobody can wait for it (changes.versions_at_end).
        and not (
            deferring_creates()
            and sql.lstrip()[:6].upper() == "INSERT"
            and "ON CONFLICT" not in sql.upper()
        )
    ):
        outermost = conn.atomic_blocks[0]
        if getattr(conn, "_volcano_writers_lock", None) is not outermost:
            conn._volcano_writers_lock = outermost  # a strong reference: its id is not reused
            with conn.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_ADVISORY_LOCK_KEY])
    return execute(sql, params, many, context)


def _on_connection(sender: Any, connection: Any, **kwargs: Any) -> None:
    if connection.vendor == "postgresql" and _wrapper not in connection.execute_wrappers:
        connection.execute_wrappers.append(_wrapper)


def install() -> None:
    """Wrap every PostgreSQL connection (now and future) so writers lock in one order."""
    from django.db.backends.signals import connection_created

    connection_created.connect(_on_connection, dispatch_uid="volcano-lock-order")
    if connection.connection is not None:
        _on_connection(None, connection)


def is_transient(error: BaseException) -> bool:
    """Return whether ``error`` is a deadlock or serialization failure worth a retry."""
    cause = getattr(error, "__cause__", None)
    code = getattr(cause, "sqlstate", None) or getattr(cause, "pgcode", None)
    return isinstance(error, OperationalError) and code in TRANSIENT_CODES


def retry_transient(call: Callable[[], T], *, attempts: int = 4) -> T:
    """Return ``call()``, retried whole (a new transaction) after a transient failure."""
    for attempt in range(1, attempts + 1):
        try:
            return call()
        except OperationalError as error:
            if attempt == attempts or not is_transient(error) or connection.in_atomic_block:
                raise
            logger.info("transient database error, retrying (%d/%d): %s", attempt, attempts, error)
            time.sleep(0.02 * attempt)
    raise AssertionError("unreachable")
