"""Backfill: pods that ask for nothing are placed where the predicates allow."""

from __future__ import annotations

from scheduler.engine.api.types import PodGroupPhase, PredicateStatus, TaskStatus
from scheduler.engine.framework import run_session
from tests.engine.builders import build_cluster, build_node, build_pod, build_pod_group, conf


def test_best_effort_pod_goes_to_a_full_node_when_predicates_allow():
    full = build_pod_group(
        "full",
        [build_pod("full-task-0", status=TaskStatus.RUNNING, node="n1", cpu="4")],
        phase=PodGroupPhase.RUNNING,
    )
    be = build_pod_group("be", [build_pod("be-task-0", best_effort=True)])
    decisions = run_session(build_cluster([build_node("n1")], [full, be]), conf("backfill"))
    assert decisions.binds == {"ns/be-task-0": "n1"}


def test_best_effort_pod_refused_everywhere_gets_a_fit_error(probe):
    probe["predicate"] = lambda task, node: PredicateStatus("node(s) pod number exceeded")
    be = build_pod_group("be", [build_pod("be-task-0", best_effort=True)])
    decisions = run_session(
        build_cluster([build_node("n1")], [be]), conf("backfill", ("gang", "probe"))
    )
    assert decisions.binds == {}
    assert (
        decisions.task_fit_errors["ns/be-task-0"]
        == "0/1 nodes are unavailable: 1 node(s) pod number exceeded."
    )


def test_best_effort_gang_binds_only_when_ready():
    pods = [build_pod(f"be-task-{i}", best_effort=True) for i in range(2)]
    job = build_pod_group("be", pods, min_member=3)
    job.add_task(build_pod("be-task-2", cpu="100"))
    decisions = run_session(build_cluster([build_node("n1")], [job]), conf("backfill"))
    assert decisions.binds == {}


def test_backfill_leaves_pods_with_requests_alone():
    job = build_pod_group("j", [build_pod("j-task-0")])
    decisions = run_session(build_cluster([build_node("n1")], [job]), conf("backfill"))
    assert decisions.binds == {}
