"""The per-template node cache: answers follow node changes and explicit invalidation."""

from __future__ import annotations

import numpy as np

from scheduler.engine.framework import EventHandler, run_session
from tests.engine.builders import build_cluster, build_node, build_pod, build_pod_group, conf, gang
from tests.engine.plugins.probe import ProbePlugin


def test_score_is_recomputed_for_the_node_a_pod_just_landed_on(probe):
    # Spread: score = free cpu; pods of one template must alternate between equal nodes.
    def free_cpu(task, rows):
        return ProbePlugin.opened[-1].arrays.idle[rows, 0].astype(np.float64)

    probe["batch_node_order"] = free_cpu
    job = gang("j", 4, min_member=1)
    decisions = run_session(
        build_cluster([build_node("a"), build_node("b")], [job]),
        conf("allocate", ("gang", "probe")),
    )
    assert decisions.binds == {
        "ns/j-task-0": "a",
        "ns/j-task-1": "b",
        "ns/j-task-2": "a",
        "ns/j-task-3": "b",
    }


def test_touch_nodes_makes_cross_node_answers_fresh(probe):
    # Anti-affinity across nodes: once any pod of the job lands, node "b" is refused. Placing on
    # "a" does not change "b"'s row, so the plugin must touch it.
    landed: list[str] = []

    def refuse_b_after_first(task, rows):
        return np.array([not (landed and row == 1) for row in rows.tolist()])

    def on_allocate(event):
        landed.append(event.task.name)
        ProbePlugin.opened[-1].touch_nodes(None)

    probe["batch_predicate"] = refuse_b_after_first
    probe["batch_node_order"] = lambda task, rows: -rows.astype(np.float64)  # prefer a
    probe["event_handler"] = lambda: EventHandler(allocate_func=on_allocate)
    pods = [build_pod(f"j-task-{i}", cpu="3") for i in range(2)]
    job = build_pod_group("j", pods, min_member=1)
    decisions = run_session(
        build_cluster([build_node("a"), build_node("b")], [job]),
        conf("allocate", ("gang", "probe")),
    )
    assert decisions.binds == {"ns/j-task-0": "a"}


def test_a_cloned_cluster_accounts_on_its_own_and_keeps_idle_used_and_future_idle_together():
    # The accounting planes are views of one array: a clone must view its own copy, so a
    # session on the clone binds the same pods and leaves the original's free room untouched.
    job = gang("j", 2, min_member=2)
    cluster = build_cluster([build_node("a"), build_node("b")], [job])
    before = cluster.arrays.idle.copy()
    clone = cluster.clone()
    decisions = run_session(clone, conf("allocate", ("gang",)))
    assert sorted(decisions.binds) == ["ns/j-task-0", "ns/j-task-1"]
    assert (cluster.arrays.idle == before).all()
    arrays = clone.arrays
    # every placed request left Idle and FutureIdle for Used, on the clone only
    assert (arrays.used.sum(axis=0) > 0).any()
    assert (arrays.idle + arrays.used == arrays.allocatable).all()
    assert (arrays.future_idle + arrays.used == arrays.allocatable).all()
    assert (cluster.arrays.used == 0).all()
