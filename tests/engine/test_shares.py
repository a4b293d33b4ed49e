"""Queue shares read from the sharing plugins without running an action (and their previews)."""

from __future__ import annotations

import pytest

from scheduler.engine.api.types import PodGroupPhase, TaskStatus
from scheduler.engine.shares import QueueChange, queue_shares
from tests.engine.builders import (
    build_cluster,
    build_node,
    build_pod,
    build_pod_group,
    build_queue,
    conf,
    gang,
)

CORE = 1000
PROPORTION = conf(plugins=("priority", "gang", "drf", "predicates", "proportion"))
CAPACITY = conf(plugins=("priority", "gang", "predicates", "capacity"))


def _cluster(weight_a: int = 1, weight_b: int = 1):  # type: ignore[no-untyped-def]
    """Two 8-core nodes; queues a and b each ask for all 16 cores; c holds nothing."""
    nodes = [build_node("n1", cpu="8", memory="64Gi"), build_node("n2", cpu="8", memory="64Gi")]
    jobs = [
        gang("ja", 16, min_member=1, queue="a", memory="1Gi"),
        gang("jb", 16, min_member=1, queue="b", memory="1Gi"),
    ]
    queues = [
        build_queue("a", weight=weight_a),
        build_queue("b", weight=weight_b),
        build_queue("c"),
    ]
    return build_cluster(nodes, jobs, queues)


def test_proportion_splits_the_cluster_by_weight() -> None:
    report = queue_shares(_cluster(3, 1), PROPORTION)
    assert report.plugin == "proportion"
    assert report.queues["a"].deserved["cpu"] == pytest.approx(12 * CORE)
    assert report.queues["b"].deserved["cpu"] == pytest.approx(4 * CORE)
    assert not report.queues["c"].taking_part  # holds no job: no share at all


def test_a_change_is_previewed_on_the_snapshot_and_equals_the_edited_cluster() -> None:
    previewed = queue_shares(_cluster(), PROPORTION, changes={"a": QueueChange(weight=3)})
    edited = queue_shares(_cluster(3, 1), PROPORTION)
    for name in ("a", "b"):
        assert previewed.queues[name].deserved == edited.queues[name].deserved


def test_a_capability_caps_the_deserved_share_and_the_rest_goes_to_the_others() -> None:
    report = queue_shares(
        _cluster(), PROPORTION, changes={"a": QueueChange(capability={"cpu": 4 * CORE})}
    )
    assert report.queues["a"].deserved["cpu"] == pytest.approx(4 * CORE)
    assert report.queues["b"].deserved["cpu"] == pytest.approx(12 * CORE)


def test_overused_and_reclaimable_follow_the_allocation() -> None:
    nodes = [build_node("n1", cpu="8", memory="64Gi")]
    running = [build_pod(f"r{i}", cpu="2", status=TaskStatus.RUNNING, node="n1") for i in range(4)]
    holder = build_pod_group("holder", running, queue="a", phase=PodGroupPhase.RUNNING)
    waiting = gang("waiting", 4, min_member=1, queue="b", cpu="2")
    cluster = build_cluster(nodes, [holder, waiting], [build_queue("a"), build_queue("b")])
    report = queue_shares(cluster, PROPORTION)
    a = report.queues["a"]
    assert a.allocated["cpu"] == 8 * CORE
    assert a.deserved["cpu"] == pytest.approx(4 * CORE)
    assert a.overused
    assert a.reclaimable
    assert not report.queues["b"].overused
    assert report.queue_order[0] == "b"  # the smaller share is served first


def test_a_queue_that_may_not_be_reclaimed_says_so() -> None:
    nodes = [build_node("n1", cpu="8", memory="64Gi")]
    running = [build_pod(f"r{i}", cpu="2", status=TaskStatus.RUNNING, node="n1") for i in range(4)]
    holder = build_pod_group("holder", running, queue="a", phase=PodGroupPhase.RUNNING)
    waiting = gang("waiting", 4, min_member=1, queue="b", cpu="2")
    queues = [build_queue("a", reclaimable=False), build_queue("b")]
    report = queue_shares(build_cluster(nodes, [holder, waiting], queues), PROPORTION)
    assert report.queues["a"].overused
    assert not report.queues["a"].reclaimable


def test_capacity_uses_the_configured_deserved() -> None:
    report = queue_shares(
        _cluster(), CAPACITY, changes={"a": QueueChange(deserved={"cpu": 10 * CORE})}
    )
    assert report.plugin == "capacity"
    assert report.queues["a"].deserved["cpu"] == pytest.approx(10 * CORE)


def test_the_line_of_waiting_jobs_follows_the_job_order_plugins() -> None:
    nodes = [build_node("n1", cpu="1")]
    jobs = [
        gang("old", 1, cpu="2", queue="a", minutes=0, phase=PodGroupPhase.PENDING),
        gang(
            "new-urgent",
            1,
            cpu="2",
            queue="a",
            minutes=5,
            priority=100,
            phase=PodGroupPhase.PENDING,
        ),
        gang("newer", 1, cpu="2", queue="a", minutes=9, phase=PodGroupPhase.PENDING),
    ]
    report = queue_shares(build_cluster(nodes, jobs, [build_queue("a")]), PROPORTION)
    assert report.job_order["a"] == ["ns/new-urgent", "ns/old", "ns/newer"]


def test_a_quota_on_a_resource_nothing_has_is_left_out() -> None:
    from scheduler.engine.shares import apply_changes

    cluster = _cluster()
    dropped = apply_changes(cluster, {"a": QueueChange(capability={"example.com/fpga": 1000})})
    assert dropped == ["example.com/fpga"]
    assert cluster.queues["a"].capability is None


def test_one_snapshot_gives_both_sides_of_a_preview() -> None:
    from scheduler.engine.shares import queue_shares_pair

    before, after = queue_shares_pair(_cluster(), PROPORTION, {"a": QueueChange(weight=3)})
    fresh_before = queue_shares(_cluster(), PROPORTION)
    fresh_after = queue_shares(_cluster(3, 1), PROPORTION)
    for name in ("a", "b", "c"):
        assert before.queues[name] == fresh_before.queues[name]
        assert after.queues[name].deserved == fresh_after.queues[name].deserved
    assert after.queues["a"].weight == 3
