"""The worker: one cycle recorded, retention, leases, the embedded loop, what the apps
registered for it to run."""

from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from core.models import Pod
from kube import registry
from kube.registry import Controller, SessionHook, SessionReport
from monitoring.models import HistorySample
from queues.models import Queue
from scheduler.leader import DatabaseLease
from scheduler.models import LeaderLease, SchedulerConfiguration, SessionRecord
from scheduler.worker import (
    EmbeddedWorker,
    run_leader_cycle,
    run_once,
    run_startup_hooks,
)
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


def test_the_apps_register_what_the_worker_runs() -> None:
    controllers = [c.name for c in registry.controllers()]
    assert controllers.index("jobs") < controllers.index("training")  # today's order
    hooks = {h.name: h for h in registry.session_hooks()}
    assert {"monitoring.history", "monitoring.node-history"} <= set(hooks)
    assert hooks["monitoring.history"].housekeeping is not None
    assert any(tick.__module__ == "kubelet.runtime" for tick in registry.runtimes())


def test_controllers_run_in_their_order_before_the_session(monkeypatch: Any) -> None:
    ran: list[str] = []

    def controller(name: str, order: int) -> Controller:
        def reconcile(now: datetime) -> None:
            ran.append(name)

        return Controller(name, reconcile, order=order)

    controllers = {"second": controller("second", 2), "first": controller("first", 1)}
    monkeypatch.setattr(registry._REGISTRY, "controllers", controllers)

    run_once()

    assert ran == ["first", "second"]


def test_a_failing_controller_fails_the_cycle_and_the_next_one_tries_again(
    monkeypatch: Any,
) -> None:
    make_node("n1")
    make_gang("g", replicas=1)

    def broken(now: datetime) -> None:
        raise RuntimeError("controller down")

    monkeypatch.setattr(registry._REGISTRY, "controllers", {"broken": Controller("broken", broken)})

    summary = run_once()

    assert summary.error == "RuntimeError: controller down"
    assert summary.record is not None
    assert summary.record.error == summary.error
    assert not Pod.objects.filter(node__isnull=False).exists()


def test_a_failing_session_hook_is_logged_and_the_session_and_the_others_go_on(
    monkeypatch: Any, caplog: pytest.LogCaptureFixture
) -> None:
    make_node("n1")
    make_gang("g", replicas=2)

    def broken(report: SessionReport) -> None:
        raise RuntimeError("figures lost")

    monkeypatch.setitem(
        registry._REGISTRY.session_hooks, "test.broken", SessionHook("test.broken", broken)
    )
    with caplog.at_level(logging.ERROR, logger="scheduler.worker"):
        summary = run_once(reconcile=False)

    assert summary.error == ""
    assert summary.record is not None
    assert summary.record.binds == 2
    assert HistorySample.objects.count() == 1  # the history's own hook still ran
    assert "session hook test.broken failed" in caplog.text


def test_a_starting_loop_creates_the_built_in_queues_even_after_a_failing_chore(
    monkeypatch: Any, caplog: pytest.LogCaptureFixture
) -> None:
    Queue.objects.filter(name="default").update(name="lost")  # a restore without it

    def broken() -> None:
        raise RuntimeError("no luck")

    startup = {"test.broken": broken, **registry._REGISTRY.startup}
    monkeypatch.setattr(registry._REGISTRY, "startup", startup)
    with caplog.at_level(logging.ERROR, logger="scheduler.worker"):
        run_startup_hooks()

    assert Queue.objects.filter(name="default").exists()
    assert "start-up hook tests.scheduler.test_worker" in caplog.text
