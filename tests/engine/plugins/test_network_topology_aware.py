"""network-topology-aware's scores, checked against the numbers of Volcano's plugin tests.

Each case is ``TestBatchNodeOrderFn`` / ``TestNetworkTopologyAwareNodeScore_*`` in Volcano's
``network_topology_aware_test.go``: the same nodes, HyperNodes, pods and arguments, and the
scores Volcano expects (to one decimal, as its tests compare).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import yaml

from scheduler.engine.framework import open_session
from scheduler.engine.util.scenario import load_scenario
from tests.engine.plugins.network_topology_aware_kit import hypernode, node


def _pod(name: str, node_name: str, requests: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "ns1",
                     "annotations": {"scheduling.k8s.io/group-name": "pg1"}},
        "spec": {"nodeName": node_name, "containers": [{"name": "main", "resources": {"requests": requests}}]},
        "status": {"phase": "Running" if node_name else "Pending"},
    }  # fmt: skip


THREE_TIERS = [
    hypernode("s0", 3, ["s1", "s2"], "HyperNode"),
    hypernode("s1", 2, ["s3", "s4"], "HyperNode"),
    hypernode("s2", 2, ["s5", "s6"], "HyperNode"),
    *(hypernode(s, 1, [f"{s}-n1", f"{s}-n2"]) for s in ("s3", "s4", "s5", "s6")),
]


def _nodes(**extra: str) -> list[dict[str, Any]]:
    shapes = {"s3": ("2", "4G"), "s4": ("4", "4G"), "s5": ("2", "8G"), "s6": ("4", "8G")}
    foo = {"s3": "8", "s4": "8", "s5": "16", "s6": "16"}
    return [
        node(f"{s}-n{i}", cpu, memory, **({"example.com/foo": foo[s]} if extra else {}))
        for s, (cpu, memory) in shapes.items()
        for i in (1, 2)
    ]


def _scores(
    objects: list[dict[str, Any]],
    arguments: dict[str, Any],
    topology: Any = None,
    only: list[str] | None = None,
) -> dict[str, float]:
    plugin: dict[str, Any] = {"name": "network-topology-aware"}
    if arguments:
        plugin["arguments"] = arguments
    conf = yaml.safe_dump({"actions": "allocate", "tiers": [{"plugins": [plugin]}]})
    group_spec: dict[str, Any] = {"minMember": 1}
    if topology is not None:
        group_spec["networkTopology"] = topology
    group = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
             "metadata": {"name": "pg1", "namespace": "ns1"}, "spec": group_spec,
             "status": {"phase": "Inqueue"}}  # fmt: skip
    text = yaml.safe_dump({"name": "t", "config": conf, "objects": [*objects, group]})
    loaded = load_scenario(text)
    ssn = open_session(loaded.cluster, loaded.conf)
    task = ssn.jobs["ns1/pg1"].tasks["ns1/p1"]
    task.job_allocated_hypernode = ssn.jobs["ns1/pg1"].allocated_hypernode
    nodes = [n for n in ssn.node_list if only is None or n.name in only]
    rows = np.array([n.index for n in nodes], dtype=np.int64)
    fn = ssn.flat_fns("live_node_order")[0]
    total = fn(task, rows, np.zeros(len(rows)))
    if total is None:
        total = np.zeros(len(rows))
    return {n.name: float(v) for n, v in zip(nodes, total, strict=True)}


CUSTOM = {
    "weight": 10,
    "hypernode.binpack.cpu": 1,
    "hypernode.binpack.memory": 4,
    "hypernode.binpack.resources": "nvidia.com/gpu, example.com/foo",
    "hypernode.binpack.resources.nvidia.com/gpu": 2,
    "hypernode.binpack.resources.example.com/foo": 3,
    "hypernode.binpack.normal-pod.enable": True,
    "hypernode.binpack.normal-pod.fading": 0,
}
EPS = 0.1  # Volcano's tests compare to within 0.1
FOO = {"cpu": "2", "memory": "4G", "example.com/foo": "8"}


def _pairs(*values: float) -> list[float]:
    return [v for v in values for _ in (0, 1)]


@pytest.mark.parametrize(
    ("case", "pods", "arguments", "foo", "expected"),
    [
        (
            "score empty nodes for single task with no network topology and no hypernode-level binpacking",
            [_pod("p1", "", {"cpu": "2", "memory": "4G"})],
            {"hypernode.binpack.normal-pod.enable": False},
            False,
            _pairs(0, 0, 0, 0),
        ),
        (
            "score empty nodes for single task with no network topology and default plugin arguments",
            [_pod("p1", "", {"cpu": "2", "memory": "4G"})],
            {},
            False,
            _pairs(25.8, 21.6, 19.9, 15.7),
        ),
        (
            "score empty nodes for single task with no network topology and customized plugin arguments",
            [_pod("p1", "", FOO)],
            CUSTOM,
            True,
            _pairs(500.0, 468.8, 281.3, 250.0),
        ),
        (
            "score non-empty nodes for single task with no network topology and customized plugin arguments",
            [_pod("p1", "", FOO), _pod("p2", "s3-n1", FOO), _pod("p3", "s3-n2", FOO)],
            CUSTOM,
            True,
            _pairs(0.0, 468.8, 281.3, 250.0),
        ),
    ],
)
def test_batch_node_order_for_pods_without_topology(
    case: str,
    pods: list[dict[str, Any]],
    arguments: dict[str, Any],
    foo: bool,
    expected: list[float],
) -> None:
    objects = [*_nodes(**({"foo": "1"} if foo else {})), *THREE_TIERS, *pods]
    got = _scores(objects, arguments)
    assert list(got.values()) == pytest.approx(expected, abs=EPS), case


SMALL = {"cpu": "2", "memory": "4G"}
ONE_PER_LEAF = ["s3-n1", "s4-n1", "s5-n1"]


def test_topology_pods_score_by_the_tier_of_the_lca_with_their_job() -> None:
    # TestNetworkTopologyAwareNodeScore_Hard "Tasks in job rescheduled, score nodes according to
    # node hypernode LCA hyperNode tier": the job runs in s3; its own leaf scores 1, the other
    # leaf of its spine (4-2)/(4-1), the other spine's (4-3)/(4-1) (the virtual top is tier 4).
    pods = [_pod("p1", "", SMALL), _pod("p2", "s3-n1", SMALL), _pod("p3", "s3-n2", SMALL)]
    topology = {"mode": "hard", "highestTierAllowed": 0}
    got = _scores([*_nodes(), *THREE_TIERS, *pods], {"weight": 1}, topology, ONE_PER_LEAF)
    assert got == pytest.approx({"s3-n1": 100.0, "s4-n1": 66.6, "s5-n1": 33.3}, abs=EPS)


def test_equal_lca_scores_are_broken_by_the_share_of_the_jobs_pods_already_there() -> None:
    # TestNetworkTopologyAwareNodeScore_Hard "... task num of the hyperNode when there are at
    # least two hyperNodes have max hyperNode tier score": the job spans s3 and s4 (its HyperNode
    # is s1), both leaves score (4-2)/(4-1), plus 2/4 and 1/4 of its pods already there.
    pods = [_pod("p1", "", SMALL), _pod("p2", "s3-n1", SMALL), _pod("p3", "s3-n2", SMALL),
            _pod("p4", "s4-n1", SMALL)]  # fmt: skip
    topology = {"mode": "hard", "highestTierAllowed": 0}
    got = _scores([*_nodes(), *THREE_TIERS, *pods], {"weight": 1}, topology, ONE_PER_LEAF)
    assert got == pytest.approx({"s3-n1": 116.6, "s4-n1": 91.6, "s5-n1": 33.3}, abs=EPS)


def test_topology_pods_of_a_job_with_no_pods_placed_score_zero() -> None:
    # TestNetworkTopologyAwareNodeScore_Hard "Tasks in job first scheduler, score all nodes zero"
    pods = [_pod("p1", "", {"cpu": "2", "memory": "4G"})]
    got = _scores([*_nodes(), *THREE_TIERS, *pods], {}, {"mode": "hard", "highestTierAllowed": 2})
    assert set(got.values()) == {0.0}


def _gradient_session(busy_cpu: str):  # type: ignore[no-untyped-def]
    objects = [
        node("a1", "4", "8Gi"), node("a2", "4", "8Gi"), node("b1", "4", "8Gi"),
        node("b2", "4", "8Gi"),
        hypernode("a", 1, ["a1", "a2"]), hypernode("b", 1, ["b1", "b2"]),
        hypernode("spine", 2, ["a", "b"], "HyperNode"),
        _pod("p1", "", {"cpu": "1"}),
        {**_pod("busy", "a1", {"cpu": busy_cpu}),
         "metadata": {"name": "busy", "namespace": "other"}},
    ]  # fmt: skip
    group = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
             "metadata": {"name": "pg1", "namespace": "ns1"},
             "spec": {"minMember": 1, "minResources": {"cpu": "6"},
                      "networkTopology": {"mode": "hard", "highestTierAllowed": 2}},
             "status": {"phase": "Inqueue"}}  # fmt: skip
    conf = 'actions: "allocate"\ntiers:\n- plugins:\n  - name: network-topology-aware\n'
    loaded = load_scenario(
        yaml.safe_dump({"name": "g", "config": conf, "objects": [*objects, group]})
    )
    return open_session(loaded.cluster, loaded.conf)


def test_gradient_keeps_hypernodes_with_room_for_the_minimum_lowest_tier_first() -> None:
    # TestHyperNodeGradientPreFiltering: a HyperNode is kept when its idle (or future idle)
    # resources cover the job's minResources; groups run from the lowest tier.
    ssn = _gradient_session("3")
    job = ssn.jobs["ns1/pg1"]
    minimum = ssn.resource_index.vector(job.min_resources)
    assert ssn.hypernode_gradient(job, "<cluster-top-hypernode>", 2, "", minimum) == [
        ["b"],
        ["spine"],
    ]
    # A job already placed somewhere skips the filter (and searches below its HyperNode's
    # highest allowed ancestor).
    assert ssn.hypernode_gradient(job, "<cluster-top-hypernode>", 2, "a", minimum) == [
        ["a", "b"],
        ["spine"],
    ]
    assert ssn.hypernode_gradient(job, "<cluster-top-hypernode>", 1, "a", minimum) == [["a"]]
