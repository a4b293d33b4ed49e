"""Writers lock in one order (the writers' lock, then rows) and transient failures are retried."""

from __future__ import annotations

import os
import threading

import pytest
from django.db import OperationalError, connection, connections, transaction

from jobs.models import Job
from kube.changes import _ADVISORY_LOCK_KEY
from kube.lock_order import is_transient, retry_transient


class _CauseError(Exception):
    def __init__(self, sqlstate: str) -> None:
        super().__init__(sqlstate)
        self.sqlstate = sqlstate


def _transient(code: str = "40P01") -> OperationalError:
    error = OperationalError("deadlock detected")
    error.__cause__ = _CauseError(code)
    return error


def test_a_deadlocked_call_is_retried_whole_and_other_errors_are_not() -> None:
    calls: list[int] = []

    def flaky() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise _transient()
        return "served"

    assert retry_transient(flaky) == "served"
    assert len(calls) == 3
    assert is_transient(_transient("40001"))
    assert not is_transient(_transient("23505"))  # a unique violation is the caller's
    with pytest.raises(OperationalError):
        retry_transient(lambda: (_ for _ in ()).throw(_transient("23505")))


@pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")),
    reason="advisory locks: needs DATABASE_URL pointing at PostgreSQL (.ci/run sets it)",
)
@pytest.mark.django_db(transaction=True)
def test_locking_a_row_of_a_served_object_takes_the_writers_lock_first() -> None:
    job = Job.objects.create(namespace="default", name="locked")
    holding, release = threading.Event(), threading.Event()

    def writer() -> None:
        with transaction.atomic():
            Job.objects.select_for_update().get(pk=job.pk)  # a row lock, as an API update takes
            holding.set()
            release.wait(10)
        connections.close_all()

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert holding.wait(10)
        with connection.cursor() as cursor:  # another connection: is the writers' lock free?
            cursor.execute("SELECT pg_try_advisory_lock(%s)", [_ADVISORY_LOCK_KEY])
            free = cursor.fetchone()[0]
            if free:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [_ADVISORY_LOCK_KEY])
        assert not free  # the row's writer holds the writers' lock before the row
    finally:
        release.set()
        thread.join(10)
