"""Preempt action: starving jobs evict lower-priority tasks of their own queue."""

from __future__ import annotations

import numpy as np

from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.task_info import TaskTemplate
from scheduler.engine.api.types import PodGroupPhase, TaskStatus
from scheduler.engine.conf import load_conf
from scheduler.engine.framework import Eviction, open_session, run_session
from scheduler.engine.framework.registry import get_action
from tests.engine.builders import (
    T0,
    build_cluster,
    build_node,
    build_pod,
    build_pod_group,
    conf,
    gang,
)

TIER1 = ("priority", "gang", "conformance")
zone_b = {"key": "zone", "operator": "In", "values": ["b"]}


def running_job(
    name: str, n: int, *, queue: str = "default", node: str = "n1", **kwargs: object
) -> JobInfo:
    pods = [build_pod(f"{name}-task-{i}", status=TaskStatus.RUNNING, node=node) for i in range(n)]
    return build_pod_group(name, pods, queue=queue, phase=PodGroupPhase.RUNNING, **kwargs)  # type: ignore[arg-type]


def test_eviction_names_the_reason_and_the_preemptor():
    low = running_job("low", 2)
    high = gang("high", 1, priority=1000, minutes=1)
    cluster = build_cluster([build_node("n1", cpu="2")], [low, high])
    decisions = run_session(cluster, conf("allocate, preempt", TIER1))
    assert decisions.evictions == [Eviction("ns/low-task-0", "n1", "preempt", "ns/high-task-0")]
    assert decisions.pipelined == {"ns/high-task-0": "n1"}
    assert decisions.binds == {}


def test_gang_that_cannot_be_pipelined_undoes_every_eviction():
    low = running_job("low", 2)
    other = running_job("other", 2, node="n2")
    high = gang("high", 3, min_member=3, priority=1000, minutes=1)
    cluster = build_cluster(
        [build_node("n1", cpu="2"), build_node("n2", cpu="2")], [low, other, high]
    )
    before = {name: getattr(cluster.arrays, name).copy() for name in ("idle", "future_idle")}
    decisions = run_session(cluster, conf("allocate, preempt", TIER1))
    # gang lets each victim job lose one task: two freed cpus for a gang of three.
    assert decisions.evictions == []
    assert decisions.pipelined == {}
    assert all(t.status == TaskStatus.RUNNING for j in (low, other) for t in j.tasks.values())
    for name, array in before.items():
        assert np.array_equal(getattr(cluster.arrays, name), array), name


def test_pods_marked_not_preemptable_are_never_victims():
    low = running_job("low", 2)
    for task in low.tasks.values():
        task.preemptable = False
    high = gang("high", 1, priority=1000, minutes=1)
    cluster = build_cluster([build_node("n1", cpu="2")], [low, high])
    assert run_session(cluster, conf("allocate, preempt", TIER1)).evictions == []


def test_best_effort_preemptor_evicts_only_best_effort_tasks():
    low = running_job("low", 2)
    high = build_pod_group(
        "high", [build_pod("high-task-0", best_effort=True)], priority=1000, minutes=1
    )
    cluster = build_cluster([build_node("n1", cpu="2", pods=2)], [low, high])
    assert run_session(cluster, conf("preempt", TIER1)).evictions == []


def test_victims_come_from_the_best_scored_node_first():
    low_a = running_job("lowa", 2, node="n1")
    low_b = running_job("lowb", 2, node="n2")
    high = gang("high", 1, priority=1000, minutes=1)
    preferred = {"weight": 10, "preference": {"matchExpressions": [zone_b]}}
    next(iter(high.tasks.values())).template = TaskTemplate(
        namespace="ns",
        affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [preferred]}},
    )
    text = """\
actions: "allocate, preempt"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: predicates
  - name: nodeorder
"""
    nodes = [build_node("n1", cpu="2"), build_node("n2", cpu="2", labels={"zone": "b"})]
    decisions = run_session(build_cluster(nodes, [low_a, low_b, high]), load_conf(text))
    # n2 scores higher (preferred node affinity), so its tasks are the victims.
    assert decisions.pipelined == {"ns/high-task-0": "n2"}
    assert [e.task for e in decisions.evictions] == ["ns/lowb-task-0"]


def test_only_the_queue_of_the_preemptor_is_touched():
    low = running_job("low", 2, queue="q2")
    high = gang("high", 1, priority=1000, minutes=1, queue="q1")
    queues = [QueueInfo("q1", creation_timestamp=T0), QueueInfo("q2", creation_timestamp=T0)]
    cluster = build_cluster([build_node("n1", cpu="2")], [low, high], queues)
    assert run_session(cluster, conf("allocate, preempt", TIER1)).evictions == []


def test_a_pod_waiting_for_its_nominated_node_does_not_preempt():
    low = running_job("low", 2)
    high = gang("high", 1, priority=1000, minutes=1)
    releasing = build_pod("gone-task-0", status=TaskStatus.RELEASING, node="n2")
    gone = build_pod_group("gone", [releasing], phase=PodGroupPhase.RUNNING)
    next(iter(high.tasks.values())).nominated_node_name = "n2"
    cluster = build_cluster(
        [build_node("n1", cpu="2"), build_node("n2", cpu="1")], [low, gone, high]
    )
    assert run_session(cluster, conf("preempt", TIER1)).evictions == []


def topology_conf(*, minimum: int = 1, plugins: str = "priority, gang, conformance") -> str:
    tier = "".join(f"  - name: {p.strip()}\n" for p in plugins.split(","))
    return f"""\
actions: "preempt"
tiers:
- plugins:
{tier}configurations:
- name: preempt
  arguments:
    enableTopologyAwarePreemption: true
    topologyAwarePreemptWorkerNum: 4
    minCandidateNodesAbsolute: {minimum}
"""


def two_nodes_mid_and_low() -> list[JobInfo]:
    mid = running_job("mid", 2, node="n1", priority=500)
    low = running_job("low", 2, node="n2", priority=0)
    for job in (mid, low):  # candidates are compared by their pods' priorities
        for task in job.tasks.values():
            task.priority = job.priority
    return [mid, low, gang("high", 1, priority=1000, minutes=1)]


def test_topology_aware_mode_picks_the_node_with_the_cheapest_victims():
    nodes = [build_node("n1", cpu="2"), build_node("n2", cpu="2")]
    decisions = run_session(
        build_cluster(nodes, two_nodes_mid_and_low()), load_conf(topology_conf(minimum=2))
    )
    assert [e.task for e in decisions.evictions] == ["ns/low-task-0"]
    assert decisions.pipelined == {"ns/high-task-0": "n2"}
    normal = run_session(
        build_cluster(
            [build_node("n1", cpu="2"), build_node("n2", cpu="2")], two_nodes_mid_and_low()
        ),
        conf("preempt", TIER1),
    )
    assert [e.task for e in normal.evictions] == ["ns/mid-task-0"]


def test_topology_aware_window_of_one_node_takes_the_first_candidate():
    nodes = [build_node("n1", cpu="2"), build_node("n2", cpu="2")]
    decisions = run_session(
        build_cluster(nodes, two_nodes_mid_and_low()), load_conf(topology_conf(minimum=1))
    )
    assert [e.task for e in decisions.evictions] == ["ns/mid-task-0"]


def small_big_and_high() -> list[JobInfo]:
    def holding(name: str, cpu: str, priority: int) -> JobInfo:
        pod = build_pod(f"{name}-task-0", cpu=cpu, status=TaskStatus.RUNNING, node="n1")
        return build_pod_group(name, [pod], phase=PodGroupPhase.RUNNING, priority=priority)

    high = build_pod_group("high", [build_pod("high-task-0", cpu="2")], priority=1000, minutes=1)
    return [holding("small", "1", 0), holding("big", "2", 10), high]


def test_topology_aware_mode_gives_back_victims_that_were_not_needed():
    text = topology_conf(plugins="priority, conformance")

    def evicted(conf_text: str) -> list[str]:
        cluster = build_cluster([build_node("n1", cpu="3")], small_big_and_high())
        return [e.task for e in run_session(cluster, load_conf(conf_text)).evictions]

    # Victim order takes the lower-priority job's small task first, then the big one; the small
    # one turns out not to be needed and is given back. The normal mode evicts both.
    assert evicted(text) == ["ns/big-task-0"]
    normal = text.replace(
        "enableTopologyAwarePreemption: true", "enableTopologyAwarePreemption: false"
    )
    assert evicted(normal) == ["ns/small-task-0", "ns/big-task-0"]


def test_preempt_is_registered_with_volcano_argument_names():
    action = get_action("preempt")
    assert action is not None
    names = {spec.name for spec in action.arguments_schema}
    assert {"predicateErrorCacheEnable", "enableTopologyAwarePreemption"} <= names


def test_no_starving_plugin_means_no_preemption():
    low = running_job("low", 2)
    high = gang("high", 1, priority=1000, minutes=1)
    cluster = build_cluster([build_node("n1", cpu="2")], [low, high])
    text = """\
actions: "preempt"
tiers:
- plugins:
  - name: priority
    enableJobStarving: false
  - name: gang
    enableJobStarving: false
"""
    ssn = open_session(cluster, load_conf(text))
    assert not ssn.job_starving(high)
    assert run_session(cluster, load_conf(text)).evictions == []
