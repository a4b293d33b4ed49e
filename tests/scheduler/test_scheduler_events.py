"""What ``kubectl describe`` shows of the scheduler: Scheduled, FailedScheduling, Unschedulable."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from accounts.models import NamespaceGrant
from core.models import Event
from scheduler import worker
from scheduler.cache import Snapshot, apply_decisions, read_snapshot
from scheduler.engine import load_conf, run_session
from scheduler.engine.framework.decisions import Decisions
from tests.kube.api_kit import EVENTS, token_client
from tests.scheduler.factories import TEST_CONF, make_gang, make_node

pytestmark = pytest.mark.django_db


def session(uid: str) -> tuple[Snapshot, Decisions]:
    snapshot = read_snapshot()
    return snapshot, run_session(snapshot.cluster, load_conf(TEST_CONF), uid=uid)


def run(uid: str) -> Decisions:
    snapshot, decisions = session(uid)
    apply_decisions(snapshot, decisions, session_uid=uid)
    return decisions


def events_of(kind: str, name: str) -> list[tuple[str, str, str]]:
    rows = Event.objects.filter(involved_kind=kind, involved_name=name).order_by("pk")
    return [(e.type, e.reason, e.message) for e in rows]


def test_a_bind_records_scheduled_with_the_node() -> None:
    make_node("n1", cpu=4)
    _, (pod,) = make_gang("small", replicas=1, cpu=1)

    run("s1")

    assert events_of("Pod", pod.name) == [
        ("Normal", "Scheduled", "Successfully assigned default/small-task-0 to n1")
    ]
    event = Event.objects.get(involved_name=pod.name)
    assert event.involved_uid == pod.uid
    assert event.source == "volcano-scheduler"


def test_a_pod_that_cannot_fit_gets_one_failed_scheduling_until_its_reason_changes() -> None:
    node = make_node("n1", cpu=2)
    _, (pod,) = make_gang("big", replicas=1, cpu=3)

    run("s1")
    run("s2")  # same reason: the condition is unchanged, so no second event

    failed = ("Warning", "FailedScheduling", "0/1 nodes are unavailable: 1 Insufficient cpu.")
    assert events_of("Pod", pod.name) == [failed]
    # A second node that cannot hold it either: a new reason, a new event.
    make_node("n2", cpu=1)
    run("s3")
    assert events_of("Pod", pod.name) == [
        failed,
        ("Warning", "FailedScheduling", "0/2 nodes are unavailable: 2 Insufficient cpu."),
    ]
    # Room at last: bound, and Scheduled follows.
    node.allocatable = {**node.allocatable, "cpu": 4000}
    node.save()
    run("s4")
    assert events_of("Pod", pod.name)[-1] == (
        "Normal",
        "Scheduled",
        "Successfully assigned default/big-task-0 to n1",
    )


def test_a_gang_that_cannot_start_gets_unschedulable_on_its_podgroup_once() -> None:
    make_node("n1", cpu=2)
    group, pods = make_gang("gang", replicas=3)  # two fit, the gang needs three

    decisions = run("s1")
    run("s2")

    assert events_of("PodGroup", group.name) == [
        ("Warning", "Unschedulable", decisions.unschedulable["default/gang"])
    ]
    assert "3/3 tasks in gang unschedulable" in decisions.unschedulable["default/gang"]
    for pod in pods:  # each member says why it waits
        assert [reason for _, reason, _ in events_of("Pod", pod.name)] == ["FailedScheduling"]


def test_the_events_api_lists_a_pods_scheduler_events(django_user_model: Any) -> None:
    make_node("n1", cpu=4)
    _, (pod,) = make_gang("small", replicas=1, cpu=1)
    run("s1")
    user = django_user_model.objects.create_user("vera", password="pw-vera")
    user.groups.add(Group.objects.get(name="viewer"))
    NamespaceGrant.objects.create(user=user, namespace="default")
    viewer = token_client(user)

    response = viewer.get(
        EVENTS.format(ns="default"), {"fieldSelector": f"involvedObject.name={pod.name}"}
    )

    assert response.status_code == 200
    (item,) = response.json()["items"]
    assert item["reason"] == "Scheduled"
    assert item["involvedObject"]["kind"] == "Pod"
    assert item["message"] == "Successfully assigned default/small-task-0 to n1"


def test_events_expire_after_the_event_ttl(monkeypatch: pytest.MonkeyPatch) -> None:
    make_node("n1", cpu=4)
    _, (old_pod, new_pod) = make_gang("two", replicas=2, cpu=1)
    run("s1")
    hour_ago = timezone.now() - dt.timedelta(hours=1, seconds=5)
    Event.objects.filter(involved_name=old_pod.name).update(last_timestamp=hour_ago)
    monkeypatch.setattr(worker, "_last_prune", None)

    worker.prune_change_stream()

    assert events_of("Pod", old_pod.name) == []
    assert len(events_of("Pod", new_pod.name)) == 1
