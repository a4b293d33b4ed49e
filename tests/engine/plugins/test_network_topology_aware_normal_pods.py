"""network-topology-aware's node score of a pod without networkTopology, at scale.

From Volcano's ``Test_batchNodeOrderFnForNormalPods``: every node half used, the pod asking the
other half of one node; a node scores the mean of its HyperNodes' binpacking (fading 1: every tier
weighs the same), each HyperNode's share being (its use + the pod) / its allocatable. Volcano runs
2000 nodes under 200/40/5/1 HyperNodes; this runs 200 under 20/10/5/1 (the same sums, smaller).
Volcano's case builds its session by hand, without the virtual top HyperNode a real session adds
above the top tier (``addClusterTopHyperNode``); this session has it, so it counts as a fifth tier
holding every node.
"""

from __future__ import annotations

import time

import numpy as np

from tests.engine.plugins.network_topology_aware_kit import modulo_tree, node, pod, session

NODES = 200
PER_TIER = (20, 10, 5, 1)
WEIGHT = 10
ARGUMENTS: dict[str, object] = {
    "weight": WEIGHT,
    "hypernode.binpack.cpu": 5,
    "hypernode.binpack.memory": 5,
    "hypernode.binpack.resources": "example.com/foo",
    "hypernode.binpack.resources.example.com/foo": 5,
    "hypernode.binpack.normal-pod.enable": True,
    "hypernode.binpack.normal-pod.fading": 1,
}
HALF = {"memory": "4000", "example.com/foo": "5"}


def test_every_node_scores_the_mean_of_its_hypernodes_binpacking() -> None:
    objects = [node(f"n{i}", "100", "8000", **{"example.com/foo": "10"}) for i in range(NODES)]
    objects += [pod(f"half{i}", "other", f"n{i}", "50", **HALF) for i in range(NODES)]
    objects += modulo_tree(NODES, PER_TIER)
    objects.append(pod("normal", "ns1", "", "50", **HALF))
    ssn = session(objects, ARGUMENTS)
    task = next(t for j in ssn.jobs.values() for t in j.tasks.values() if t.name == "normal")
    rows = np.arange(len(ssn.node_list), dtype=np.int64)
    score = ssn.flat_fns("live_node_order")[0]
    start = time.perf_counter()
    scores = score(task, rows, np.zeros(len(rows)))
    elapsed = time.perf_counter() - start
    # per tier (the virtual top last), a HyperNode of k nodes: (k/2 + 1/2) / k
    shares = [(k / 2 + 0.5) / k for k in (NODES // count for count in (*PER_TIER, 1))]
    expected = sum(shares) / len(shares) * 100 * WEIGHT  # 0.5185 x 100 x 10
    assert scores is not None
    assert np.allclose(scores, expected)
    assert elapsed < 1.0  # Volcano's case measures the time: a few ms here
