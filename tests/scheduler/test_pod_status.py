"""Why is my pod pending: the PodScheduled condition and nominatedNodeName, as Kubernetes shows."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from core.models import Pod
from scheduler.cache import Snapshot, apply_decisions, read_snapshot
from scheduler.engine import load_conf, run_session
from scheduler.engine.framework.decisions import Decisions, Eviction
from tests.scheduler.factories import TEST_CONF, make_gang, make_node

pytestmark = pytest.mark.django_db


def session(uid: str) -> tuple[Snapshot, Decisions]:
    snapshot = read_snapshot()
    return snapshot, run_session(snapshot.cluster, load_conf(TEST_CONF), uid=uid)


def scheduled(pod: Pod) -> dict[str, Any]:
    pod.refresh_from_db()
    found: list[dict[str, Any]] = [c for c in pod.conditions if c["type"] == "PodScheduled"]
    assert len(found) == 1
    return found[0]


def test_a_pod_that_cannot_fit_shows_the_engine_fit_error() -> None:
    make_node("n1", cpu=2)
    _, (pod,) = make_gang("big", replicas=1, cpu=3)
    snapshot, decisions = session("s1")

    result = apply_decisions(snapshot, decisions, session_uid="s1")

    condition = scheduled(pod)
    assert condition["status"] == "False"
    assert condition["reason"] == "Unschedulable"
    assert condition["message"] == decisions.task_fit_errors["default/big-task-0"]
    assert condition["message"] == "0/1 nodes are unavailable: 1 Insufficient cpu."
    assert pod.node_id is None
    assert result.pods_explained == 1


def test_a_pod_still_pending_for_the_same_reason_is_not_rewritten() -> None:
    make_node("n1", cpu=2)
    _, (pod,) = make_gang("big", replicas=1, cpu=3)
    snapshot, decisions = session("s1")
    apply_decisions(snapshot, decisions, session_uid="s1")
    pod.refresh_from_db()
    version, conditions = pod.resource_version, pod.conditions

    snapshot, decisions = session("s2")
    result = apply_decisions(snapshot, decisions, session_uid="s2")

    pod.refresh_from_db()
    assert result.pods_explained == 0
    assert pod.resource_version == version
    assert pod.conditions == conditions


def test_gang_members_held_back_show_their_job_reason() -> None:
    make_node("n1", cpu=2)
    _, pods = make_gang("gang", replicas=3)  # two fit, the gang needs three
    snapshot, decisions = session("s1")

    apply_decisions(snapshot, decisions, session_uid="s1")

    messages = {scheduled(pod)["message"] for pod in pods}
    assert decisions.unschedulable["default/gang"] in messages
    assert all(scheduled(pod)["status"] == "False" for pod in pods)
    assert not Pod.objects.filter(node__isnull=False).exists()


def test_once_bound_the_condition_turns_true_and_the_reason_goes() -> None:
    node = make_node("n1", cpu=2)
    _, (pod,) = make_gang("big", replicas=1, cpu=3)
    snapshot, decisions = session("s1")
    apply_decisions(snapshot, decisions, session_uid="s1")
    node.allocatable = {**node.allocatable, "cpu": 4000}
    node.save()

    snapshot, decisions = session("s2")
    result = apply_decisions(snapshot, decisions, session_uid="s2")

    assert result.bound == 1
    condition = scheduled(pod)
    assert pod.node_id == node.pk
    assert condition["status"] == "True"
    assert "reason" not in condition
    assert "message" not in condition
    assert [c["type"] for c in pod.conditions] == ["PodScheduled"]


def test_a_pipelined_pod_is_nominated_and_loses_the_nomination_when_bound() -> None:
    node = make_node("n1", cpu=2)
    _, (leaving,) = make_gang("leaving", replicas=1, cpu=2)
    Pod.objects.filter(pk=leaving.pk).update(
        node=node, phase="Running", deletion_time=timezone.now()
    )
    _, (waiting,) = make_gang("waiting", replicas=1, cpu=2)
    snapshot, decisions = session("s1")
    assert decisions.pipelined == {"default/waiting-task-0": "n1"}

    apply_decisions(snapshot, decisions, session_uid="s1")

    condition = scheduled(waiting)
    assert waiting.nominated_node_name == "n1"
    assert condition["status"] == "False"
    assert condition["reason"] == "Unschedulable"
    assert "n1" in condition["message"]
    # The node frees up: the pod is bound there and nominated no more.
    Pod.objects.filter(pk=leaving.pk).update(phase="Succeeded")
    snapshot, decisions = session("s2")
    apply_decisions(snapshot, decisions, session_uid="s2")
    assert scheduled(waiting)["status"] == "True"
    assert waiting.nominated_node_name == ""


def test_the_pod_api_object_shows_conditions_and_nominated_node(superuser_client: Client) -> None:
    node = make_node("n1", cpu=2)
    _, (leaving,) = make_gang("leaving", replicas=1, cpu=2)
    Pod.objects.filter(pk=leaving.pk).update(
        node=node, phase="Running", deletion_time=timezone.now()
    )
    make_gang("waiting", replicas=1, cpu=2)
    make_gang("big", replicas=1, cpu=3)
    snapshot, decisions = session("s1")
    apply_decisions(snapshot, decisions, session_uid="s1")

    waiting = superuser_client.get("/api/v1/namespaces/default/pods/waiting-task-0").json()
    big = superuser_client.get("/api/v1/namespaces/default/pods/big-task-0").json()

    assert waiting["status"]["nominatedNodeName"] == "n1"
    (condition,) = big["status"]["conditions"]
    assert condition["type"] == "PodScheduled"
    assert condition["status"] == "False"
    assert condition["reason"] == "Unschedulable"
    assert condition["message"] == decisions.task_fit_errors["default/big-task-0"]
    assert condition["lastProbeTime"] is None
    assert condition["lastTransitionTime"].endswith("Z")


def test_an_evicted_pod_loses_its_nomination() -> None:
    node = make_node("n1")
    _, (pod,) = make_gang("victim", replicas=1)
    Pod.objects.filter(pk=pod.pk).update(node=node, phase="Running", nominated_node_name="n2")
    snapshot = read_snapshot()
    decisions = Decisions(evictions=[Eviction("default/victim-task-0", "n1", "preempted")])

    assert apply_decisions(snapshot, decisions).evicted == 1

    pod.refresh_from_db()
    assert pod.nominated_node_name == ""
    assert pod.task_status == "Releasing"
