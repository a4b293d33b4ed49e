"""network-topology-aware's HyperNode order: binpacking of all of a job's pods per HyperNode.

From Volcano's ``TestHyperNodeOrderFn`` (``network_topology_aware_test.go``): the same nodes,
HyperNodes, pods and arguments, and the scores Volcano expects (to one decimal). Volcano scores a
sub-job's pods; a job here is one sub-job.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.engine.plugins.network_topology_aware_kit import TOP, hypernode, node, pod, session

SHAPES = {"s3": ("2", "4G"), "s4": ("4", "4G"), "s5": ("2", "8G"), "s6": ("4", "8G")}
FOO = {"s3": "8", "s4": "8", "s5": "16", "s6": "16"}  # on the first node of each; 0 on the second


def _objects(foo: bool) -> list[dict[str, Any]]:
    nodes = [
        node(f"{s}-n{i}", cpu, memory, **({"example.com/foo": FOO[s] if i == 1 else "0"} if foo else {}))
        for s, (cpu, memory) in SHAPES.items()
        for i in (1, 2)
    ]  # fmt: skip
    hypernodes = [
        hypernode("s0", 3, ["s1", "s2"], "HyperNode"),
        hypernode("s1", 2, ["s3", "s4"], "HyperNode"),
        hypernode("s2", 2, ["s5", "s6"], "HyperNode"),
        *(hypernode(s, 1, [f"{s}-n1", f"{s}-n2"]) for s in SHAPES),
    ]
    extra = {"example.com/foo": "8"} if foo else {}
    pods = [pod(p, "ns1", "", "4", "pg1", memory="4G", **extra) for p in ("p1", "p2")]
    group = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
             "metadata": {"name": "pg1", "namespace": "ns1"},
             "spec": {"minMember": 2, "networkTopology": {"mode": "hard", "highestTierAllowed": 2}},
             "status": {"phase": "Inqueue"}}  # fmt: skip
    return [*nodes, *hypernodes, *pods, group]


CUSTOM = {
    "weight": 10,
    "hypernode.binpack.cpu": 3,
    "hypernode.binpack.memory": 4,
    "hypernode.binpack.resources": "nvidia.com/gpu, example.com/foo",
    "hypernode.binpack.resources.nvidia.com/gpu": 2,
    "hypernode.binpack.resources.example.com/foo": 3,
    "hypernode.binpack.normal-pod.enable": True,
    "hypernode.binpack.normal-pod.fading": 0,
}


@pytest.mark.parametrize(
    ("foo", "arguments", "expected"),
    [
        pytest.param(
            False, None,
            {"s0": 25.0, "s1": 58.3, "s2": 45.8, "s3": 0.0, "s4": 100.0, "s5": 0.0, "s6": 75.0,
             TOP: 25.0},
            id="default arguments",
        ),
        pytest.param(
            True, CUSTOM,
            {"s0": 266.7, "s1": 700.0, "s2": 450.0, "s3": 0.0, "s4": 0.0, "s5": 0.0, "s6": 800.0,
             TOP: 266.7},
            id="customized arguments",
        ),
    ],
)  # fmt: skip
def test_hypernode_order_binpacks_all_the_jobs_pods(
    foo: bool, arguments: dict[str, Any] | None, expected: dict[str, float]
) -> None:
    ssn = session(_objects(foo), arguments)
    scores = ssn.hypernode_order(ssn.jobs["ns1/pg1"], list(expected))
    assert {name: round(score, 1) for name, score in scores.items()} == expected
