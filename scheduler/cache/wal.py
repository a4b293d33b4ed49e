"""SQLite: the write-ahead log's checkpoint runs after a session, not inside its commit.

In WAL mode each commit appends the pages it changed to the log, and by default the connection
that commits when the log has passed 1,000 pages copies the log back into the database file
there and then (an automatic checkpoint), before its ``COMMIT`` returns. A session that binds
10,000 pods dirties several thousand pages, so its commit carried the whole copy: about 30 of
the commit's 41-44 ms on this machine (12-13 ms without it). ``checkpoint_after`` turns the
automatic checkpoint off for the scheduler's connection while the cycle runs and does it once
the cycle is over, so the copy is still made every period (the log does not grow), only off the
session's latency. PostgreSQL checkpoints in its own background process: nothing to do there.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import OperationalError
from django.db import connection as default_connection
from django.db.backends.base.base import BaseDatabaseWrapper

__all__ = ["AUTOCHECKPOINT_PAGES", "checkpoint_after"]

AUTOCHECKPOINT_PAGES = 1000  # SQLite's default, restored after the cycle

logger = logging.getLogger(__name__)


@contextmanager
def checkpoint_after(connection: BaseDatabaseWrapper | None = None) -> Iterator[None]:
    """Hold SQLite's automatic checkpoint back for the block; checkpoint when it ends.

    The checkpoint is ``PASSIVE``: it copies what no reader still needs and waits for no one
    (a page a reader still holds is copied by a later checkpoint). ``connection``: Django's
    default one unless given.
    """
    connection = connection or default_connection
    if connection.vendor != "sqlite":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA wal_autocheckpoint = 0")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA wal_autocheckpoint = {AUTOCHECKPOINT_PAGES}")
            if not connection.in_atomic_block:  # inside a transaction it could copy nothing
                try:
                    cursor.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except OperationalError as exc:
                    # A table another connection holds (a shared-cache database: the tests'
                    # in-memory one) refuses even a passive checkpoint; the cycle is done and
                    # the next one's checkpoint copies the log, so this one is only skipped.
                    logger.debug("WAL checkpoint skipped: %s", exc)
