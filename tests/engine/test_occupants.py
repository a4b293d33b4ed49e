"""Pods of no PodGroup (``occupants``) take their node's room but are no job of the session."""

from __future__ import annotations

from scheduler.engine.api.cluster_info import ClusterInfo
from scheduler.engine.api.types import TaskStatus
from scheduler.engine.framework import run_session
from tests.engine.builders import T0, build_node, build_pod, conf, gang


def test_an_occupant_fills_its_node_without_being_a_job() -> None:
    occupant = build_pod("leftover", cpu="3", status=TaskStatus.RUNNING, node="n1")
    cluster = ClusterInfo.build(
        now=T0, nodes=[build_node("n1", cpu="4")], jobs=[gang("j", 2)], occupants=[occupant]
    )

    assert list(cluster.jobs) == ["ns/j"]
    decisions = run_session(cluster, conf())

    assert decisions.binds == {}  # 1 CPU left: the gang of two 1-CPU pods does not fit
    assert "ns/j" in decisions.unschedulable


def test_a_finished_occupant_holds_nothing() -> None:
    done = build_pod("done", cpu="4", status=TaskStatus.SUCCEEDED, node="n1")
    cluster = ClusterInfo.build(
        now=T0, nodes=[build_node("n1", cpu="4")], jobs=[gang("j", 2)], occupants=[done]
    )

    decisions = run_session(cluster, conf())

    assert sorted(decisions.binds) == ["ns/j-task-0", "ns/j-task-1"]
