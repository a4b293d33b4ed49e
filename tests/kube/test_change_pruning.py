"""The worker keeps the watch change stream bounded: old events go, old watches get 410."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from kube.models import ChangeEvent
from scheduler import worker
from scheduler.leader import DatabaseLease
from scheduler.worker import prune_change_stream, run_leader_cycle
from tests.kube.api_kit import JOBS, example, watch_events

URL = JOBS.format(ns="default")


@pytest.fixture(autouse=True)
def _never_pruned(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start each test as a fresh worker process would: nothing pruned yet."""
    monkeypatch.setattr(worker, "_last_prune", None)


def _create_jobs(client: Client, *names: str) -> None:
    for name in names:
        manifest = example("jobs/nginx-sleep.yaml")
        manifest["metadata"]["name"] = name
        manifest["spec"]["queue"] = "default"
        response = client.post(URL, json.dumps(manifest), content_type="application/json")
        assert response.status_code == 201, response.content


def _age_every_event(minutes: int) -> None:
    ChangeEvent.objects.update(created_at=timezone.now() - dt.timedelta(minutes=minutes))


def test_a_worker_cycle_prunes_events_older_than_the_retention(operator: Client) -> None:
    _create_jobs(operator, "job-a", "job-b", "job-c")
    _age_every_event(minutes=20)  # older than the default 15 minutes
    old_newest = ChangeEvent.objects.order_by("-id").values_list("id", flat=True)[0]

    summary = run_leader_cycle(DatabaseLease(ttl=5, holder="test"))

    assert summary is not None
    # The cycle's own writes are recent; of the old ones only the newest may stay.
    assert not ChangeEvent.objects.filter(id__lt=old_newest).exists()
    since = old_newest - 2
    events = list(
        watch_events(operator.get(f"{URL}?watch=1&resourceVersion={since}&timeoutSeconds=1"))
    )
    assert [e["type"] for e in events] == ["ERROR"]
    assert (events[0]["object"]["code"], events[0]["object"]["reason"]) == (410, "Expired")


def test_events_within_the_retention_stay_and_watches_from_them_replay(operator: Client) -> None:
    _create_jobs(operator, "job-a")
    _age_every_event(minutes=10)
    version = ChangeEvent.objects.order_by("id").values_list("id", flat=True)[0]
    _create_jobs(operator, "job-b")
    count = ChangeEvent.objects.count()

    assert prune_change_stream() == 0

    assert ChangeEvent.objects.count() == count
    events = list(
        watch_events(operator.get(f"{URL}?watch=1&resourceVersion={version}&timeoutSeconds=1"))
    )
    assert [e["object"]["metadata"]["name"] for e in events] == ["job-b"]


def test_the_retention_comes_from_settings(operator: Client, settings: Any) -> None:
    settings.VOLCANO_CHANGE_RETENTION = 60
    _create_jobs(operator, "job-a", "job-b")
    _age_every_event(minutes=2)

    assert prune_change_stream() == 1  # the newest is always kept

    assert ChangeEvent.objects.count() == 1


def test_pruning_runs_at_most_once_per_period(operator: Client, settings: Any) -> None:
    settings.VOLCANO_CHANGE_PRUNE_PERIOD = 60
    now = [1000.0]
    assert prune_change_stream(clock=lambda: now[0]) == 0
    _create_jobs(operator, "job-a", "job-b")
    _age_every_event(minutes=20)

    now[0] += 30
    assert prune_change_stream(clock=lambda: now[0]) is None  # not yet: nothing queried
    assert ChangeEvent.objects.count() == 2
    now[0] += 31
    assert prune_change_stream(clock=lambda: now[0]) == 1
