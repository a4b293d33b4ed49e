"""PostgreSQL: a change recorded outside a transaction still commits in id order.

The writers' lock (``changes.serialise_writers``) is transaction-scoped, so a writer outside a
transaction let go of it before inserting its change: another writer could then take a lower
id, and the first one's change committed above a gap. A watch reading the stream at that moment
moved past the lower id and never read it. Here one writer records rows outside a transaction
(``record_rows``, as the kubelet's and controllers' updates do), another takes the lock just
after the first has taken it; the stream must never show a change above one not yet committed.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import pytest
from django.db import connections, transaction

import kube.changes
from kube.changes import latest_resource_version, record_rows
from kube.models import ChangeEvent
from queues.models import Queue

pytestmark = [
    pytest.mark.skipif(
        not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")),
        reason="the writers' lock: needs DATABASE_URL pointing at PostgreSQL",
    ),
    pytest.mark.django_db(transaction=True),
]


def test_a_change_recorded_outside_a_transaction_never_commits_above_a_gap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    queue = Queue.objects.create(name="ordered", weight=1)
    start = latest_resource_version()
    locked, other_wrote, release_other = threading.Event(), threading.Event(), threading.Event()
    take_lock = kube.changes.serialise_writers
    errors: list[BaseException] = []

    def then_let_the_other_writer_try() -> None:
        take_lock()
        if threading.current_thread().name == "outside":
            locked.set()
            other_wrote.wait(2)  # it cannot while this writer still holds the lock

    def outside() -> None:
        try:
            Queue.objects.filter(pk=queue.pk).update(weight=5)
            record_rows(Queue, [queue.pk])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    def other() -> None:
        try:
            locked.wait(10)
            with transaction.atomic():
                Queue.objects.create(name="other", weight=1)
                other_wrote.set()
                release_other.wait(10)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    monkeypatch.setattr(kube.changes, "serialise_writers", then_let_the_other_writer_try)
    threads: list[Any] = [
        threading.Thread(target=other, name="other"),
        threading.Thread(target=outside, name="outside"),
    ]
    for thread in threads:
        thread.start()
    threads[1].join(15)
    try:
        seen = list(
            ChangeEvent.objects.filter(id__gt=start).order_by("id").values_list("id", flat=True)
        )
    finally:
        release_other.set()
        threads[0].join(15)

    assert not errors
    assert seen, "the change recorded outside a transaction committed"
    assert seen == list(range(start + 1, seen[-1] + 1)), "a change committed above a gap"
