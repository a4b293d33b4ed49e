"""Capacity plugin: configured deserved, elastic up to realCapability, spec.parent trees."""

from __future__ import annotations

import pytest

from apis.errors import ConfError
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.types import PodGroupPhase, TaskStatus
from scheduler.engine.conf import load_conf
from scheduler.engine.framework import Session, open_session, run_session
from scheduler.engine.plugins.capacity import CapacityPlugin
from scheduler.engine.plugins.capacity_tree import CapacityTree
from tests.engine.builders import (
    T0,
    build_cluster,
    build_node,
    build_pod,
    build_pod_group,
    conf,
    gang,
    res,
)

FLAT = ("priority", "gang", "capacity")


def tree_conf(level: int = 0) -> str:
    return f"""\
actions: "enqueue, allocate, reclaim"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: capacity
    enableHierarchy: true
    arguments:
      ancestorReclaimLevel: {level}
"""


def q(name: str, **kwargs: object) -> QueueInfo:
    return QueueInfo(name=name, creation_timestamp=T0, **kwargs)  # type: ignore[arg-type]


def tree(ssn: Session) -> CapacityTree:
    plugin = ssn.plugins["capacity"]
    assert isinstance(plugin, CapacityPlugin)
    return plugin.tree


def running_job(name: str, n: int, *, queue: str, node: str = "n1", **pod: str) -> JobInfo:
    pods = [
        build_pod(f"{name}-task-{i}", status=TaskStatus.RUNNING, node=node, **pod)  # type: ignore[arg-type]
        for i in range(n)
    ]
    return build_pod_group(name, pods, queue=queue, phase=PodGroupPhase.RUNNING)


def test_a_queue_borrows_past_deserved_up_to_its_capability():
    job = gang("a", 6, min_member=1, queue="q1")
    queues = [q("q1", deserved=res(cpu="2"), capability=res(cpu="4"))]
    cluster = build_cluster([build_node("n1", cpu="8", memory="64Gi")], [job], queues)
    assert len(run_session(cluster, conf("allocate", FLAT)).binds) == 4


def test_deserved_is_clamped_to_real_capability_and_raised_to_guarantee():
    jobs = [gang("a", 1, queue="q1"), gang("b", 1, queue="q2")]
    queues = [
        q("q1", deserved=res(cpu="20"), capability=res(cpu="3")),
        q("q2", deserved=res(cpu="1"), guarantee=res(cpu="2")),
    ]
    cluster = build_cluster([build_node("n1", cpu="8", memory="64Gi")], jobs, queues)
    ssn = open_session(cluster, conf("allocate", FLAT))
    cpu = ssn.resource_index.position["cpu"]
    attrs = tree(ssn).attrs
    assert attrs["q1"].deserved[cpu] == 3000
    assert attrs["q2"].deserved[cpu] == 2000
    assert attrs["q1"].real_capability[cpu] == 3000  # min(8 - 2, 3)


def test_share_is_one_without_deserved_and_such_queues_go_last_on_ties():
    jobs = [gang("a", 1, queue="plain"), gang("b", 1, queue="sized")]
    queues = [q("plain"), q("sized", deserved=res(cpu="1"))]
    cluster = build_cluster([build_node("n1", cpu="8", memory="64Gi")], jobs, queues)
    ssn = open_session(cluster, conf("allocate", FLAT))
    attrs = tree(ssn).attrs
    assert attrs["plain"].share == 1.0
    assert attrs["sized"].share == 0.0
    assert ssn.queue_order_fn(ssn.queues["sized"], ssn.queues["plain"])


def test_preemptive_needs_room_under_deserved_on_a_requested_resource():
    within = gang("within", 1, queue="q1")
    beyond = gang("beyond", 1, queue="q2")
    queues = [q("q1", deserved=res(cpu="2")), q("q2", deserved=res(memory="1Gi"))]
    cluster = build_cluster([build_node("n1", cpu="8", memory="64Gi")], [within, beyond], queues)
    ssn = open_session(cluster, conf("reclaim", FLAT))
    assert ssn.preemptive(ssn.queues["q1"], next(iter(within.tasks.values())))
    # q2 deserves 1Gi of memory: a 1Gi task fits under it, a 2Gi one does not.
    assert ssn.preemptive(ssn.queues["q2"], next(iter(beyond.tasks.values())))
    big = build_pod_group("big", [build_pod("big-task-0", memory="2Gi")], queue="q2")
    ssn2 = open_session(
        build_cluster([build_node("n1", cpu="8", memory="64Gi")], [big], queues),
        conf("reclaim", FLAT),
    )
    assert not ssn2.preemptive(ssn2.queues["q2"], next(iter(big.tasks.values())))


def test_reclaimable_protects_guarantee_and_stops_at_deserved():
    lender = running_job("lender", 4, queue="q1")
    owner = gang("owner", 1, queue="q2", minutes=1)
    queues = [
        q("q1", deserved=res(cpu="1"), guarantee=res(cpu="2")),
        q("q2", deserved=res(cpu="2")),
    ]
    cluster = build_cluster([build_node("n1", cpu="4", memory="64Gi")], [lender, owner], queues)
    ssn = open_session(cluster, conf("reclaim", FLAT))
    reclaimer = next(iter(owner.tasks.values()))
    victims = ssn.reclaimable(reclaimer, list(lender.tasks.values()))
    # 4 held, guarantee 2: two may go (deserved = max(1, 2) = 2).
    assert [v.name for v in victims] == ["lender-task-0", "lender-task-1"]


def test_reclaimable_skips_victims_sharing_no_resource_with_the_reclaimer():
    gpu_user = running_job("gpu", 1, queue="q1", cpu="0", memory="0")
    cpu_only = gang("cpu", 1, queue="q2")
    queues = [q("q1"), q("q2", deserved=res(cpu="2"))]
    cluster = build_cluster(
        [build_node("n1", cpu="4", memory="64Gi")], [gpu_user, cpu_only], queues
    )
    ssn = open_session(cluster, conf("reclaim", FLAT))
    reclaimer = next(iter(cpu_only.tasks.values()))
    assert ssn.reclaimable(reclaimer, list(gpu_user.tasks.values())) == []


def test_tree_child_inherits_capability_and_siblings_share_it():
    jobs = [
        gang("d", 4, min_member=1, queue="dev"),
        gang("o", 4, min_member=1, queue="ops", minutes=1),
    ]
    queues = [
        q("root"),
        q("eng", parent="root", capability=res(cpu="3")),
        q("dev", parent="eng"),
        q("ops", parent="eng"),
    ]
    cluster = build_cluster([build_node("n1", cpu="16", memory="64Gi")], jobs, queues)
    decisions = run_session(cluster, load_conf(tree_conf()))
    assert len(decisions.binds) == 3


@pytest.mark.parametrize(
    "queues",
    [
        [q("a", parent="missing")],
        [q("a", parent="b"), q("b", parent="a")],
    ],
    ids=["missing parent", "cycle"],
)
def test_broken_tree_stops_the_session(queues: list[QueueInfo]) -> None:
    job = gang("j", 1, queue="a")
    cluster = build_cluster([build_node("n1")], [job], queues)
    ssn = open_session(cluster, load_conf(tree_conf()))
    assert not tree(ssn).ready
    assert not ssn.allocatable(ssn.queues["a"], next(iter(job.tasks.values())))
    assert not ssn.job_enqueueable(job)


def test_tree_enqueue_refuses_beyond_the_parent_capability():
    job = gang("j", 1, queue="dev", phase=PodGroupPhase.PENDING, min_resources=res(cpu="3"))
    queues = [q("eng", capability=res(cpu="2")), q("dev", parent="eng", capability=res(cpu="4"))]
    cluster = build_cluster([build_node("n1", cpu="8", memory="64Gi")], [job], queues)
    ssn = open_session(cluster, load_conf(tree_conf()))
    assert not ssn.job_enqueueable(job)


def test_tree_siblings_guarantees_beyond_the_parent_leave_each_its_own():
    # eng may use 2 CPUs; its children guarantee 3 + 1. What the sibling reserves takes dev's
    # unreserved part down to nothing, not below: dev keeps its own 1 CPU (Volcano's ExceededPart).
    job = gang("j", 1, queue="dev", phase=PodGroupPhase.PENDING, min_resources=res(cpu="1"))
    queues = [
        q("eng", capability=res(cpu="2")),
        q("big", parent="eng", guarantee=res(cpu="3"), deserved=res(cpu="3")),
        q("dev", parent="eng", guarantee=res(cpu="1"), deserved=res(cpu="1")),
    ]
    cluster = build_cluster([build_node("n1", cpu="8", memory="64Gi")], [job], queues)
    ssn = open_session(cluster, load_conf(tree_conf()))
    cpu = ssn.resource_index.position["cpu"]
    assert tree(ssn).attrs["dev"].real_capability[cpu] == 1000
    assert ssn.job_enqueueable(job)


def test_tree_victims_from_the_closer_relative_first():
    queues = [
        q("eng"),
        q("dev", parent="eng"),
        q("ops", parent="eng"),
        q("sci"),
    ]
    jobs = [gang("d", 1, queue="dev"), gang("o", 1, queue="ops"), gang("s", 1, queue="sci")]
    cluster = build_cluster([build_node("n1")], jobs, queues)
    ssn = open_session(cluster, load_conf(tree_conf()))
    ops, sci, dev = ssn.queues["ops"], ssn.queues["sci"], ssn.queues["dev"]
    assert ssn.victim_queue_order_fn(ops, sci, dev)
    assert not ssn.victim_queue_order_fn(sci, ops, dev)


def test_ancestor_reclaim_level_lets_a_queue_reclaim_for_its_parent_deserved():
    owner = gang("owner", 1, queue="dev", cpu="3")
    queues = [
        q("eng", deserved=res(cpu="4")),
        q("dev", parent="eng", deserved=res(cpu="1")),
    ]
    cluster = build_cluster([build_node("n1", cpu="8", memory="64Gi")], [owner], queues)
    task = next(iter(owner.tasks.values()))
    flat = open_session(cluster, load_conf(tree_conf(0)))
    assert not flat.preemptive(flat.queues["dev"], task)
    cluster2 = build_cluster(
        [build_node("n1", cpu="8", memory="64Gi")], [gang("owner", 1, queue="dev", cpu="3")], queues
    )
    leveled = open_session(cluster2, load_conf(tree_conf(1)))
    task2 = next(iter(leveled.jobs["ns/owner"].tasks.values()))
    assert leveled.preemptive(leveled.queues["dev"], task2)


def test_ancestor_reclaim_level_must_be_an_integer():
    with pytest.raises(ConfError, match=r"arguments\.ancestorReclaimLevel: expected an integer"):
        load_conf(tree_conf().replace("ancestorReclaimLevel: 0", "ancestorReclaimLevel: two"))
