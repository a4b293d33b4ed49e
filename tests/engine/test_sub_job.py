"""Sub-jobs (PodGroup ``spec.subGroupPolicy``): how pods map to them, gang by sub-job, the
sub-job HyperNode gradient, and a large partitioned job's allocate time."""

from __future__ import annotations

import time

import pytest

from apis.errors import ManifestError
from scheduler.engine.api.hypernode import TOP_HYPERNODE
from scheduler.engine.api.pdb_info import PdbSelector
from scheduler.engine.api.sub_job import SubGroupPolicy, check_sub_jobs, sub_jobs_of
from scheduler.engine.api.types import TaskStatus
from scheduler.engine.framework import close_session
from scheduler.engine.framework.registry import ensure_loaded, get_action
from scheduler.engine.util.sub_group_manifest import read_sub_group_policies
from tests.engine.builders import build_node, build_pod_group, res
from tests.engine.sub_job_kit import (
    hard,
    labelled_pod,
    leaf,
    partitioned_job,
    policy,
    session,
    spine,
)

PARTITION = "volcano.sh/partition-id"


def test_pods_split_by_match_label_values_and_unclaimed_pods_fall_to_the_default() -> None:
    pods = [
        labelled_pod("a0", {PARTITION: "0"}),
        labelled_pod("a1", {PARTITION: "0"}),
        labelled_pod("b0", {PARTITION: "1"}),
        labelled_pod("x", {}),  # no partition label: the job's default sub-job
    ]
    job = partitioned_job("j", pods, (policy("worker", (PARTITION,), size=2, minimum=1),))
    subs = sub_jobs_of(job)
    members = {uid: sorted(t.name for t in s.tasks.values()) for uid, s in subs.items()}
    assert members == {
        "ns/j/worker-0": ["a0", "a1"],
        "ns/j/worker-1": ["b0"],
        "ns/j": ["x"],
    }
    assert subs["ns/j/worker-1"].min_available == 2
    assert subs["ns/j/worker-1"].match_index == 1
    assert subs["ns/j"].min_available == 1  # a policy job's default sub-job: one pod


def test_label_selector_limits_a_policy_to_its_task() -> None:
    only_workers = SubGroupPolicy(
        name="worker",
        match_label_keys=(PARTITION,),
        label_selector=PdbSelector(match_labels=(("volcano.sh/task-spec", "worker"),)),
    )
    pods = [
        labelled_pod("w", {PARTITION: "0", "volcano.sh/task-spec": "worker"}),
        labelled_pod("m", {PARTITION: "0", "volcano.sh/task-spec": "master"}),
    ]
    subs = sub_jobs_of(partitioned_job("j", pods, (only_workers,)))
    assert sorted(t.name for t in subs["ns/j/worker-0"].tasks.values()) == ["w"]
    assert sorted(t.name for t in subs["ns/j"].tasks.values()) == ["m"]


def test_job_without_policy_is_one_sub_job_of_its_min_member() -> None:
    job = build_pod_group("j", [labelled_pod("p0", {}), labelled_pod("p1", {})], min_member=2)
    (only,) = sub_jobs_of(job).values()
    assert only.uid == "ns/j"
    assert only.min_available == 2


def test_min_sub_groups_counts_ready_sub_jobs_per_policy() -> None:
    pods = [labelled_pod(f"p{i}", {PARTITION: str(i)}) for i in range(3)]
    job = partitioned_job("j", pods, (policy("worker", (PARTITION,), minimum=2),), min_member=1)
    assert check_sub_jobs(job, None)  # three sub-jobs exist, two are needed
    job.update_task_status(pods[0], TaskStatus.ALLOCATED)
    assert not check_sub_jobs(job, True)
    job.update_task_status(pods[1], TaskStatus.PIPELINED)
    assert not check_sub_jobs(job, True)
    assert check_sub_jobs(job, False)  # pipelined counts for pipelining only
    job.update_task_status(pods[1], TaskStatus.ALLOCATED)
    assert check_sub_jobs(job, True)


def test_too_few_sub_groups_make_the_job_invalid() -> None:
    pods = [labelled_pod("p0", {PARTITION: "0"})]
    job = partitioned_job("j", pods, (policy("worker", (PARTITION,), minimum=2),))
    ssn = session([build_node("n1")], [job])
    refusal = ssn.job_valid(ssn.jobs[job.uid])
    assert refusal is not None
    assert "subGroups" in refusal.message


def test_read_sub_group_policies_defaults_and_refusals() -> None:
    (read,) = read_sub_group_policies(
        [
            {
                "name": "w",
                "matchLabelKeys": [PARTITION],
                "networkTopology": {"highestTierAllowed": 1},
            }
        ],
        "spec.subGroupPolicy",
    )
    assert (read.sub_group_size, read.min_sub_groups) == (1, 0)
    assert read.network_topology == hard(1)
    with pytest.raises(ManifestError, match=r"spec.subGroupPolicy\[0\].name"):
        read_sub_group_policies([{"subGroupSize": 2}], "spec.subGroupPolicy")
    with pytest.raises(ManifestError, match="unique"):
        read_sub_group_policies([{"name": "a"}, {"name": "a"}], "spec.subGroupPolicy")


def test_gradient_of_a_hard_sub_job_no_hypernode_can_take_is_empty_not_the_top() -> None:
    """Volcano's TestHyperNodeGradientForSubJobFn_NoSubJobPolicyRespectsHardTopology: a hard
    sub-job asking more than any tier-1 HyperNode holds gets no HyperNode, never the root."""
    nodes = [build_node(n, cpu="8") for n in ("node-a-1", "node-a-2", "node-d-1", "node-d-2")]
    big = labelled_pod("pending-task", {PARTITION: "0"}, cpu="20")
    job = partitioned_job("j", [big], (policy("p", (PARTITION,), tier=1),))
    job.network_topology = hard(1)
    tree = [
        leaf("zone-a", ["node-a-1", "node-a-2"]),
        leaf("zone-d", ["node-d-1", "node-d-2"]),
        spine("region", ["zone-a", "zone-d"]),
    ]
    ssn = session(nodes, [job], tree)
    live = ssn.jobs[job.uid]
    sub = sub_jobs_of(live)["ns/j/p-0"]
    assert ssn.hypernode_gradient_for_sub_job(live, sub, TOP_HYPERNODE) == []
    sub.network_topology = None  # a sub-job without topology: the root alone
    assert ssn.hypernode_gradient_for_sub_job(live, sub, TOP_HYPERNODE) == [[TOP_HYPERNODE]]


def test_thousand_pods_in_hundred_sub_groups_on_thousand_nodes_allocate_in_seconds() -> None:
    """Volcano's "performance test: 1000 pods with 100 SubGroups on 1000 nodes": every pod is
    bound, each sub-group inside one tier-1 HyperNode, within a few seconds."""
    nodes = [build_node(f"n-{i:04d}", cpu="4", memory="8Gi", pods=10) for i in range(1000)]
    tree = [leaf(f"hn-{h:03d}", [f"n-{h * 10 + j:04d}" for j in range(10)]) for h in range(100)]
    tree.append(spine("hn-tier2-0", [f"hn-{h:03d}" for h in range(100)]))
    pods = [
        labelled_pod(f"p{i:04d}", {"volcano.sh/task-spec": f"subgroup-{i // 10}"}, cpu="4",
                     memory="8Gi")
        for i in range(1000)
    ]  # fmt: skip
    job = partitioned_job(
        "pg1",
        pods,
        (policy("task1", ("volcano.sh/task-spec",), size=10, minimum=100, tier=1),),
        min_member=1000,
        min_resources=res(cpu="4000", memory="8000Gi"),  # no tier-1 HyperNode holds the job
    )
    job.network_topology = hard(2)
    ssn = session(nodes, [job], tree)
    ensure_loaded()
    allocate = get_action("allocate")
    assert allocate is not None
    started = time.perf_counter()
    allocate.execute(ssn)
    elapsed = time.perf_counter() - started
    decisions = close_session(ssn)
    assert len(decisions.binds) == 1000
    for g in range(100):
        hypernodes = {int(decisions.binds[f"ns/p{g * 10 + i:04d}"][2:]) // 10 for i in range(10)}
        assert len(hypernodes) == 1  # one sub-group, one tier-1 HyperNode
    assert elapsed < 5.0, f"allocate took {elapsed:.1f}s"
