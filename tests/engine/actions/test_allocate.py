"""Allocate: where pods go, what is bound, pipelined or left, and why."""

from __future__ import annotations

import numpy as np
import pytest

from scheduler.engine.api.types import PodGroupPhase, QueueState, TaskStatus
from scheduler.engine.framework import run_session
from tests.engine.builders import (
    build_cluster,
    build_node,
    build_pod,
    build_pod_group,
    build_queue,
    conf,
    gang,
)
from tests.engine.plugins.probe import ProbePlugin


def test_pods_fill_nodes_in_name_order_when_scores_tie():
    decisions = run_session(
        build_cluster([build_node("b", cpu="1"), build_node("a", cpu="1")], [gang("j", 2)]),
        conf("allocate"),
    )
    assert decisions.binds == {"ns/j-task-0": "a", "ns/j-task-1": "b"}


def test_highest_batch_score_wins(probe):
    probe["batch_node_order"] = lambda task, rows: np.where(rows == 1, 10.0, 0.0)
    decisions = run_session(
        build_cluster([build_node("a"), build_node("b")], [gang("j", 1)]),
        conf("allocate", ("gang", "probe")),
    )
    assert decisions.binds == {"ns/j-task-0": "b"}


def test_per_node_score_and_predicate_forms_are_used_too(probe):
    probe["node_order"] = lambda task, node: 5.0 if node.name == "a" else 1.0
    probe["predicate"] = lambda task, node: None
    decisions = run_session(
        build_cluster([build_node("a"), build_node("b")], [gang("j", 1)]),
        conf("allocate", ("gang", "probe")),
    )
    assert decisions.binds == {"ns/j-task-0": "a"}


def test_predicate_refusal_is_explained_per_node(probe):
    from scheduler.engine.api.types import PredicateStatus

    probe["predicate"] = lambda task, node: (
        PredicateStatus("node(s) had untolerated taint", plugin="probe")
        if node.name == "a"
        else None
    )
    cluster = build_cluster([build_node("a"), build_node("b", cpu="1")], [gang("j", 1, cpu="2")])
    decisions = run_session(cluster, conf("allocate", ("gang", "probe")))
    assert decisions.binds == {}
    assert (
        decisions.task_fit_errors["ns/j-task-0"]
        == "0/2 nodes are unavailable: 1 Insufficient cpu, 1 node(s) had untolerated taint."
    )


def test_batch_predicate_mask_excludes_nodes(probe):
    probe["batch_predicate"] = lambda task, rows: rows != 0
    decisions = run_session(
        build_cluster([build_node("a"), build_node("b")], [gang("j", 1)]),
        conf("allocate", ("gang", "probe")),
    )
    assert decisions.binds == {"ns/j-task-0": "b"}


def test_pipelined_only_job_keeps_its_places_but_binds_nothing():
    releasing = build_pod("old-task-0", status=TaskStatus.RELEASING, node="n1", cpu="2")
    old = build_pod_group("old", [releasing], phase=PodGroupPhase.RUNNING)
    new = gang("new", 1, cpu="2", minutes=1)
    decisions = run_session(
        build_cluster([build_node("n1", cpu="2")], [old, new]), conf("allocate")
    )
    assert decisions.binds == {}
    assert decisions.pipelined == {"ns/new-task-0": "n1"}


def test_allocatable_false_skips_the_task(probe):
    probe["allocatable"] = lambda queue, task: task.name != "j-task-0"
    decisions = run_session(
        build_cluster([build_node("n1")], [gang("j", 2, min_member=1)]),
        conf("allocate", ("gang", "probe")),
    )
    assert decisions.binds == {"ns/j-task-1": "n1"}


def test_overused_queue_gets_nothing(probe):
    probe["overused"] = lambda queue: queue.name == "full"
    jobs = [gang("a", 1, queue="full"), gang("b", 1, queue="default", minutes=1)]
    cluster = build_cluster([build_node("n1")], jobs, [build_queue("full")])
    decisions = run_session(cluster, conf("allocate", ("gang", "probe")))
    assert decisions.binds == {"ns/b-task-0": "n1"}


def test_queues_are_reordered_after_every_job_round(probe):
    def fewer_placed_first(left, right):
        ssn = ProbePlugin.opened[-1]
        placed = {
            q: sum(j.ready_task_num() for j in ssn.jobs.values() if j.queue == q)
            for q in (left.name, right.name)
        }
        return placed[left.name] - placed[right.name]

    probe["queue_order"] = fewer_placed_first
    jobs = [gang(f"a{i}", 1, queue="qa", minutes=i) for i in range(3)]
    jobs += [gang(f"b{i}", 1, queue="qb", minutes=i) for i in range(3)]
    cluster = build_cluster(
        [build_node("n1", cpu="4")], jobs, [build_queue("qa"), build_queue("qb")]
    )
    decisions = run_session(cluster, conf("allocate", ("gang", "probe")))
    assert set(decisions.binds) == {"ns/a0-task-0", "ns/a1-task-0", "ns/b0-task-0", "ns/b1-task-0"}


def test_without_a_share_plugin_the_first_queue_by_name_is_served_first():
    jobs = [gang(f"a{i}", 1, queue="qa", minutes=i) for i in range(3)]
    jobs += [gang(f"b{i}", 1, queue="qb", minutes=i) for i in range(3)]
    cluster = build_cluster(
        [build_node("n1", cpu="4")], jobs, [build_queue("qb"), build_queue("qa")]
    )
    decisions = run_session(cluster, conf("allocate", ("gang",)))
    assert set(decisions.binds) == {"ns/a0-task-0", "ns/a1-task-0", "ns/a2-task-0", "ns/b0-task-0"}


def test_pending_job_waits_for_enqueue_when_enqueue_is_configured(probe):
    probe["job_enqueueable"] = lambda job: -1
    job = gang("j", 1, phase=PodGroupPhase.PENDING)
    job.min_resources = job.total_request()
    decisions = run_session(
        build_cluster([build_node("n1")], [job]), conf("enqueue, allocate", ("gang", "probe"))
    )
    assert decisions.binds == {}
    assert decisions.pod_group_phases["ns/j"] == PodGroupPhase.PENDING


def test_best_effort_and_gated_pods_are_left_to_others():
    be = build_pod("j-task-0", best_effort=True)
    gated = build_pod("j-task-1")
    gated.scheduling_gated = True
    decisions = run_session(
        build_cluster([build_node("n1")], [build_pod_group("j", [be, gated], min_member=0)]),
        conf("allocate"),
    )
    assert decisions.binds == {}


def test_role_that_failed_is_not_retried_in_the_same_job(probe):
    from scheduler.engine.api.types import PredicateStatus

    probe["predicate"] = lambda task, node: PredicateStatus("no")
    pods = [build_pod(f"j-worker-{i}", role="worker") for i in range(3)]
    pods.append(build_pod("j-ps-0", role="ps"))
    job = build_pod_group("j", pods, min_member=1)
    cluster = build_cluster([build_node("n1")], [job])
    decisions = run_session(cluster, conf("allocate", ("gang", "probe")))
    # Each role is tried once: its first pod gets the reason, the others are skipped.
    assert sorted(decisions.task_fit_errors) == ["ns/j-ps-0", "ns/j-worker-0"]


def test_nodes_are_never_filled_beyond_allocatable():
    jobs = [gang(f"j{i}", 3, min_member=1, cpu="700m", minutes=i) for i in range(10)]
    cluster = build_cluster([build_node("a", cpu="2", pods=5), build_node("b", cpu="3")], jobs)
    run_session(cluster, conf("allocate"))
    assert (cluster.arrays.idle >= 0).all()
    assert (cluster.arrays.used <= cluster.arrays.allocatable).all()


@pytest.mark.parametrize("state", [QueueState.OPEN, QueueState.CLOSED])
def test_same_input_same_decisions(state):
    def build():
        jobs = [gang(f"j{i}", 2, cpu="1500m", minutes=i % 3) for i in range(6)]
        return build_cluster(
            [build_node(f"n{i}", cpu="3") for i in range(3)],
            jobs,
            [build_queue("default", state=state)],
        )

    first, second = run_session(build(), conf()), run_session(build(), conf())
    assert first == second
    assert first.binds
