"""network-topology-aware keeps a partition's pods together: with a subGroupPolicy the pod's
sub-job, not the whole job, decides its node scores (Volcano's ``batchNodeOrderFn`` looks the
task's sub-job up and breaks LCA ties by the sub-job's pods)."""

from __future__ import annotations

from typing import Any

import numpy as np
import yaml

from scheduler.engine.framework import open_session
from scheduler.engine.util.scenario import load_scenario
from tests.engine.plugins.network_topology_aware_kit import hypernode, node

PARTITION = "volcano.sh/partition-id"


def _pod(name: str, partition: str, node_name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "ns1", "labels": {PARTITION: partition},
                         "annotations": {"scheduling.k8s.io/group-name": "pg1"}},
            "spec": {"nodeName": node_name, "containers": [
                {"name": "main", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]},
            "status": {"phase": "Running" if node_name else "Pending"}}  # fmt: skip


def _scores_of_pending_pod(policy: list[dict[str, Any]] | None) -> dict[str, float]:
    """Score the leaf nodes for partition 0's pending pod: partition 0 has one pod in leaf s3,
    partition 1 two pods in leaf s4; both leaves are under the job's HyperNode s1."""
    spec: dict[str, Any] = {"minMember": 1,
                            "networkTopology": {"mode": "hard", "highestTierAllowed": 2}}  # fmt: skip
    if policy is not None:
        spec["subGroupPolicy"] = policy
    objects = [
        *(node(n, "8", "16Gi") for n in ("s3-n1", "s3-n2", "s4-n1", "s4-n2")),
        hypernode("s3", 1, ["s3-n1", "s3-n2"]),
        hypernode("s4", 1, ["s4-n1", "s4-n2"]),
        hypernode("s1", 2, ["s3", "s4"], "HyperNode"),
        {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
         "metadata": {"name": "pg1", "namespace": "ns1"}, "spec": spec,
         "status": {"phase": "Running"}},
        _pod("a0", "0", "s3-n1"),
        _pod("b0", "1", "s4-n1"),
        _pod("b1", "1", "s4-n2"),
        _pod("a1", "0", ""),
    ]  # fmt: skip
    conf = yaml.safe_dump({"actions": "allocate", "tiers": [{"plugins": [
        {"name": "network-topology-aware"}]}]})  # fmt: skip
    loaded = load_scenario(yaml.safe_dump({"name": "t", "config": conf, "objects": objects}))
    ssn = open_session(loaded.cluster, loaded.conf)
    task = ssn.jobs["ns1/pg1"].tasks["ns1/a1"]
    task.job_allocated_hypernode = "s1"
    rows = np.array([n.index for n in ssn.node_list], dtype=np.int64)
    total = ssn.flat_fns("live_node_order")[0](task, rows, np.zeros(len(rows)))
    assert total is not None
    return {n.name: float(v) for n, v in zip(ssn.node_list, total, strict=True)}


PARTITIONS = [{"name": "part", "subGroupSize": 2, "matchLabelKeys": [PARTITION],
               "networkTopology": {"mode": "hard", "highestTierAllowed": 2}}]  # fmt: skip


def test_a_partitions_pod_is_drawn_to_the_leaf_holding_its_own_partition() -> None:
    scores = _scores_of_pending_pod(PARTITIONS)
    # LCA ties (both leaves under s1): partition 0's one pod in s3 breaks it, 1/2 of its 2 pods
    assert scores["s3-n2"] > scores["s4-n2"]
    assert scores["s3-n2"] - scores["s4-n2"] == 50.0


def test_without_a_policy_the_whole_jobs_pods_break_the_tie() -> None:
    scores = _scores_of_pending_pod(None)
    # the job's 3 placed pods: 1 in s3, 2 in s4
    assert scores["s4-n2"] > scores["s3-n2"]
