"""The worker: one cycle recorded, retention, leases, the embedded loop."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from core.models import Pod
from scheduler.leader import DatabaseLease
from scheduler.models import LeaderLease, SchedulerConfiguration, SessionRecord
from scheduler.worker import EmbeddedWorker, run_leader_cycle, run_once
from tests.scheduler.factories import make_gang, make_node, use_conf

pytestmark = pytest.mark.django_db


def test_a_cycle_binds_and_records_the_session_figures() -> None:
    make_node("n1")
    make_gang("g", replicas=2)

    summary = run_once(reconcile=False)

    rec = summary.record
    assert rec is not None
    assert rec.error == ""
    assert rec.binds == 2
    assert rec.node_count == 1
    assert rec.job_count == 1
    assert set(rec.action_ms) == {"enqueue", "allocate", "backfill"}
    assert rec.plugin_ms["gang"].keys() == {"OnSessionOpen", "OnSessionClose"}
    assert rec.e2e_ms >= rec.apply_ms > 0
    assert rec.configuration == SchedulerConfiguration.objects.get(is_active=True)
    assert Pod.objects.filter(node__isnull=False).count() == 2


def test_an_unschedulable_gang_is_counted_in_the_record() -> None:
    make_node("n1", cpu=1)
    make_gang("big", replicas=3)

    rec = run_once(reconcile=False).record

    assert rec is not None
    assert (rec.binds, rec.unschedulable, rec.pending_task_count) == (0, 1, 3)


def test_a_broken_configuration_is_recorded_as_an_error_and_binds_nothing() -> None:
    make_node("n1")
    make_gang("g", replicas=1)
    SchedulerConfiguration.objects.update(is_active=False)
    SchedulerConfiguration.objects.create(version=99, text="actions: nope", is_active=True)

    summary = run_once(reconcile=False)

    assert summary.record is not None
    assert "nope" in summary.record.error
    assert not Pod.objects.filter(node__isnull=False).exists()


def test_only_the_newest_sessions_are_kept(settings: Any) -> None:
    settings.VOLCANO_SESSION_RETENTION = 3
    make_node("n1")
    start = timezone.now()
    for i in range(5):
        run_once(reconcile=False, now=start + timedelta(seconds=i))

    kept = list(SessionRecord.objects.values_list("started_at", flat=True))
    assert kept == [start + timedelta(seconds=i) for i in (4, 3, 2)]


def test_two_candidates_never_hold_the_database_lease_at_once() -> None:
    a, b = DatabaseLease(ttl=5, holder="a"), DatabaseLease(ttl=5, holder="b")
    t0 = timezone.now()

    assert a.acquire(now=t0)
    assert not b.acquire(now=t0 + timedelta(seconds=1))
    assert a.acquire(now=t0 + timedelta(seconds=4))  # renewed until t0 + 9 s
    assert not b.acquire(now=t0 + timedelta(seconds=8))
    # The holder stops renewing (killed): the lease expires and the other one takes it.
    assert b.acquire(now=t0 + timedelta(seconds=10))
    assert not a.acquire(now=t0 + timedelta(seconds=11))
    assert LeaderLease.objects.get().holder == "b"


def test_a_released_lease_is_free_at_once() -> None:
    a, b = DatabaseLease(ttl=60, holder="a"), DatabaseLease(ttl=60, holder="b")
    assert a.acquire()
    a.release()
    assert b.acquire()
    assert b.current_holder() == "b"


def test_a_worker_without_the_lease_stands_by() -> None:
    make_node("n1")
    make_gang("g", replicas=1)
    DatabaseLease(ttl=60, holder="other").acquire()

    assert run_leader_cycle(DatabaseLease(ttl=60, holder="me")) is None
    assert not Pod.objects.filter(node__isnull=False).exists()


@pytest.mark.django_db(transaction=True)
def test_the_embedded_loop_schedules_every_period_and_stops_cleanly() -> None:
    use_conf()
    make_node("n1")
    make_gang("g", replicas=2)
    worker = EmbeddedWorker(period=0.1, lease=DatabaseLease(ttl=2, holder="embedded"))
    worker.start()
    # Poll the loop's own counter, not the database: SQLite's shared in-memory test database
    # locks whole tables, so a second reader here would only measure that.
    deadline = time.monotonic() + 20
    while worker.cycles < 30 and time.monotonic() < deadline:
        time.sleep(0.1)
    worker.stop(timeout=10)

    assert not worker.is_alive()
    assert Pod.objects.filter(phase="Running").count() == 2
    assert SessionRecord.objects.count() >= 2
    assert DatabaseLease(ttl=2, holder="x").current_holder() == ""  # released on stop
