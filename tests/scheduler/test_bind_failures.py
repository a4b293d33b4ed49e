"""A bind that fails is shown on the pod and retried (Volcano's ``SchedulerCache.Bind``).

The fault comes through the Fault subresource, as an operator injects it; the pod then shows
``PodScheduled=False`` reason ``SchedulerError`` with ``failed to bind to node <node>: <error>``
and a ``FailedScheduling`` event, and binds once the fault is cleared.
"""

from __future__ import annotations

from typing import Any

from django.test import Client

from core.models import Event, Pod
from scheduler.cache import apply_decisions, read_snapshot
from scheduler.engine import load_conf, run_session
from scheduler.worker import run_once
from tests.kube.api_kit import NODES, PODS
from tests.kubelet.faults_kit import inject
from tests.scheduler.factories import TEST_CONF, make_gang, make_node


def pod_scheduled(client: Client, name: str) -> dict[str, Any]:
    """Return the pod's PodScheduled condition as the API shows it."""
    pod = client.get(PODS.format(ns="default") + f"/{name}").json()
    return next(c for c in pod["status"]["conditions"] if c["type"] == "PodScheduled")


def test_a_failed_bind_shows_scheduler_error_and_binds_after_recovery(operator: Client) -> None:
    make_node("n1")
    make_gang("g", replicas=1)
    spec = {"type": "BindFailure", "message": "kubelet unreachable"}
    assert inject(operator, f"{NODES}/n1", spec).status_code == 201

    run_once(reconcile=False)

    condition = pod_scheduled(operator, "g-task-0")
    assert (condition["status"], condition["reason"]) == ("False", "SchedulerError")
    assert condition["message"] == "failed to bind to node n1: kubelet unreachable"
    events = Event.objects.filter(involved_name="g-task-0", reason="FailedScheduling")
    assert [(e.type, e.message) for e in events] == [
        ("Warning", "failed to bind to node n1: kubelet unreachable")
    ]
    assert Pod.objects.get(name="g-task-0").node is None

    run_once(reconcile=False)  # still failing: the same condition, no second event
    assert events.count() == 1

    assert inject(operator, f"{NODES}/n1", {"type": "BindRecovery"}).status_code == 201
    run_once(reconcile=False)

    bound = Pod.objects.select_related("node").get(name="g-task-0").node
    assert bound is not None
    assert bound.name == "n1"
    condition = pod_scheduled(operator, "g-task-0")
    assert condition["status"] == "True"


def test_a_fault_injected_after_the_snapshot_fails_the_bind_when_written(
    operator: Client,
) -> None:
    make_node("n1")
    make_node("n2")
    make_gang("g", replicas=2, cpu=3)  # one pod per node
    snapshot = read_snapshot()
    decisions = run_session(snapshot.cluster, load_conf(TEST_CONF))
    assert sorted(decisions.binds.values()) == ["n1", "n2"]
    assert inject(operator, f"{NODES}/n1", {"type": "BindFailure"}).status_code == 201

    applied = apply_decisions(snapshot, decisions)

    # The bind to n1 fails on its own; the gang's other bind stands, as in Volcano.
    failed = next(t for t, node in decisions.binds.items() if node == "n1")
    assert applied.failed_binds == {failed: ("n1", "bind refused (injected)")}
    assert applied.bound == 1
    condition = pod_scheduled(operator, failed.split("/")[1])
    assert condition["reason"] == "SchedulerError"
    assert condition["message"] == "failed to bind to node n1: bind refused (injected)"
