"""Nothing piles up: the worker prunes expired Events and session records, and keeps the rest."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from core.events import record_event
from core.models import Event
from jobs.models import Job
from kube import failpoints
from kube.failpoints import Armed
from scheduler import worker
from scheduler.leader import DatabaseLease
from scheduler.models import SessionRecord
from scheduler.worker import run_leader_cycle, run_once
from tests.jobs.controller_kit import submit
from tests.kube.api_kit import EVENTS
from tests.scheduler.factories import make_node

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_worker(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test is a new worker process: nothing pruned yet, no failpoint armed."""
    monkeypatch.setattr(worker, "_last_prune", None)
    failpoints.clear()
    yield
    failpoints.clear()


def _record(job: Job, reason: str, *, ago: dt.timedelta) -> None:
    record_event(job, kind="Job", reason=reason, message=reason, now=timezone.now() - ago)


MINE = {"Stale", "Recent", "Repeated", "TwoMinutesOld", "Fresh", "Now"}


def _reasons(client: Client) -> set[str]:
    """Return the reasons of the events this test recorded that the API still lists."""
    items = client.get(EVENTS.format(ns="default")).json()["items"]
    return {item["reason"] for item in items} & MINE


def test_the_worker_deletes_events_an_hour_after_they_were_last_seen(operator: Client) -> None:
    job = submit("chatty")
    _record(job, "Stale", ago=dt.timedelta(minutes=61))
    _record(job, "Recent", ago=dt.timedelta(minutes=59))
    _record(job, "Repeated", ago=dt.timedelta(hours=3))
    _record(job, "Repeated", ago=dt.timedelta(minutes=1))  # seen again: lives on from now

    run_leader_cycle(DatabaseLease(ttl=5, holder="w1"))

    assert _reasons(operator) == {"Recent", "Repeated"}
    assert Event.objects.get(reason="Repeated").count == 2


def test_the_event_ttl_is_a_setting(operator: Client, settings: Any) -> None:
    settings.VOLCANO_EVENT_TTL = 60
    job = submit("brief")
    _record(job, "TwoMinutesOld", ago=dt.timedelta(minutes=2))
    _record(job, "Fresh", ago=dt.timedelta(seconds=10))

    run_leader_cycle(DatabaseLease(ttl=5, holder="w1"))

    assert _reasons(operator) == {"Fresh"}


def test_session_records_expire_after_the_session_ttl(settings: Any) -> None:
    settings.VOLCANO_SESSION_TTL = 600
    make_node("n1")
    now = timezone.now()
    for minutes in (30, 11, 9, 1):
        run_once(reconcile=False, now=now - dt.timedelta(minutes=minutes))

    run_leader_cycle(DatabaseLease(ttl=5, holder="w1"))

    kept = sorted(SessionRecord.objects.values_list("started_at", flat=True))
    assert len(kept) == 3  # 9 and 1 minutes old, and the cycle the leader just ran
    assert min(kept) == now - dt.timedelta(minutes=9)


def test_a_clock_offset_expires_events_and_sessions_without_waiting(operator: Client) -> None:
    job = submit("later")
    _record(job, "Now", ago=dt.timedelta(0))
    make_node("n1")
    run_once(reconcile=False, now=timezone.now())
    failpoints.arm(Armed("clock.offset", "", value=3601))

    worker.prune_change_stream()

    assert _reasons(operator) == set()
    assert not SessionRecord.objects.exists()
