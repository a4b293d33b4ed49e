"""Network topology live: HyperNodes, a hard-topology gang, queue node groups, exported sessions.

The cache reads HyperNodes, PodGroups' ``spec.networkTopology`` and Queues' ``spec.affinity``
into the engine, and writes where a topology job's gang landed on its PodGroup
(``volcano.sh/job-allocated-hypernode``).
"""

from __future__ import annotations

from typing import Any

import pytest

from core.models import Node, Pod
from queues.models import PodGroup
from scheduler.cache import read_snapshot, snapshot_to_scenario
from scheduler.cache.hypernode_notes import ALLOCATED_HYPERNODE
from scheduler.engine import load_scenario
from scheduler.worker import run_once
from tests.scheduler.factories import make_gang, make_node, make_queue, use_conf
from topology.models import HyperNode

pytestmark = pytest.mark.django_db

TOPOLOGY_CONF = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: predicates
  - name: proportion
  - name: network-topology-aware
"""

NODEGROUP_CONF = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: predicates
  - name: proportion
  - name: nodegroup
"""


def exact(*names: str, kind: str = "Node") -> list[dict[str, Any]]:
    return [{"type": kind, "selector": {"exactMatch": {"name": name}}} for name in names]


def two_leaves() -> None:
    """Four 4-CPU nodes under two tier-1 leaves (n1 n2 | n3 n4) and one tier-2 spine."""
    for name in ("n1", "n2", "n3", "n4"):
        make_node(name, cpu=4)
    HyperNode.objects.create(name="leaf-1", tier=1, tier_name="leaf", members=exact("n1", "n2"))
    HyperNode.objects.create(name="leaf-2", tier=1, tier_name="leaf", members=exact("n3", "n4"))
    HyperNode.objects.create(
        name="spine", tier=2, members=exact("leaf-1", "leaf-2", kind="HyperNode")
    )


def running(name: str, node: str, cpu: int) -> Pod:
    """A one-pod job already running on ``node``."""
    _, (pod,) = make_gang(name, replicas=1, cpu=cpu, phase="Running")
    Pod.objects.filter(pk=pod.pk).update(node=Node.objects.get(name=node), phase="Running")
    return pod


def hard_gang(name: str, *, replicas: int, cpu: int, tier: int) -> tuple[PodGroup, list[Pod]]:
    group, pods = make_gang(name, replicas=replicas, cpu=cpu)
    PodGroup.objects.filter(pk=group.pk).update(
        network_topology={"mode": "hard", "highestTierAllowed": tier}
    )
    return group, pods


def test_a_hard_topology_gang_waits_for_one_leaf_with_room_then_lands_inside_it() -> None:
    use_conf(TOPOLOGY_CONF)
    two_leaves()
    blocker = running("blocker", "n1", 3)
    running("other", "n3", 3)
    # 4 x 2 CPUs: the cluster has room (n2 and n4 take two each), no single leaf has.
    group, pods = hard_gang("train", replicas=4, cpu=2, tier=1)

    run_once()

    assert not Pod.objects.filter(pk__in=[p.pk for p in pods], node__isnull=False).exists()
    group.refresh_from_db()
    assert ALLOCATED_HYPERNODE not in group.annotations

    Pod.objects.filter(pk=blocker.pk).update(phase="Succeeded")  # leaf-1 now has 8 CPUs free
    run_once()

    placed = set(
        Pod.objects.filter(pk__in=[p.pk for p in pods]).values_list("node__name", flat=True)
    )
    assert placed == {"n1", "n2"}
    group.refresh_from_db()
    assert group.annotations[ALLOCATED_HYPERNODE] == "leaf-1"


def test_a_soft_topology_job_is_never_annotated_with_the_whole_cluster() -> None:
    use_conf(TOPOLOGY_CONF)
    two_leaves()
    group, pods = make_gang("wide", replicas=4, cpu=3)
    PodGroup.objects.filter(pk=group.pk).update(network_topology={"mode": "soft"})

    run_once()

    assert all(p.node is not None for p in Pod.objects.filter(pk__in=[p.pk for p in pods]))
    group.refresh_from_db()
    # Four 3-CPU pods need all four nodes: the job's HyperNode is the spine, a real one.
    assert group.annotations[ALLOCATED_HYPERNODE] == "spine"


def test_a_queue_with_node_group_affinity_lands_only_in_its_group() -> None:
    use_conf(NODEGROUP_CONF)
    for name, group in (("g1-a", "group1"), ("g1-b", "group1"), ("g2-a", "group2")):
        make_node(name, cpu=8, labels={"volcano.sh/nodegroup-name": group})
    make_queue(
        "team", affinity={"nodeGroupAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": ["group2"]}},
    )  # fmt: skip
    _, pods = make_gang("q", replicas=3, cpu=1, queue="team")

    run_once()

    assert set(
        Pod.objects.filter(pk__in=[p.pk for p in pods]).values_list("node__name", flat=True)
    ) == {"g2-a"}


def test_an_exported_session_keeps_the_topology_and_replays_its_decisions() -> None:
    two_leaves()
    running("blocker", "n1", 3)
    hard_gang("train", replicas=2, cpu=2, tier=1)
    make_queue(
        "team", affinity={"nodeGroupAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": ["group2", "group1"]}},
    )  # fmt: skip

    live = read_snapshot().cluster
    text = snapshot_to_scenario(live, conf_text=TOPOLOGY_CONF, name="live")
    replay = load_scenario(text).cluster

    for cluster in (live, replay):
        assert sorted(cluster.hypernodes) == ["leaf-1", "leaf-2", "spine"]
        topology = cluster.jobs["default/train"].network_topology
        assert topology is not None
        assert (topology.mode, topology.highest_tier_allowed) == ("hard", 1)
        affinity = cluster.queues["team"].affinity
        assert affinity is not None
        assert affinity.node_group_affinity is not None
        assert affinity.node_group_affinity.preferred == ("group2", "group1")
    assert replay.hypernodes["spine"].members == live.hypernodes["spine"].members


def test_a_what_if_turning_network_topology_aware_on_keeps_the_gang_inside_one_leaf() -> None:
    from scheduler.whatif import run_what_if

    use_conf(TOPOLOGY_CONF.replace("  - name: network-topology-aware\n", ""))
    two_leaves()
    running("blocker", "n1", 3)
    running("other", "n3", 3)
    hard_gang("train", replicas=4, cpu=2, tier=1)

    report = run_what_if(TOPOLOGY_CONF)

    # Without the plugin the gang spreads over both leaves (n2 and n4 take two each); with it,
    # no leaf has room for all four, so it waits.
    active = {pod: node for pod, node in report.active.binds.items() if "train" in pod}
    assert set(active.values()) == {"n2", "n4"}
    assert not any("train" in pod for pod in report.draft.binds)
    assert report.draft.pending["default/train"].pending == 4


def partitioned_gang(name: str) -> tuple[PodGroup, list[Pod]]:
    """Four 2-CPU pods in two partitions of two, each partition held within one tier-1 leaf."""
    group, pods = make_gang(name, replicas=4, cpu=2)
    PodGroup.objects.filter(pk=group.pk).update(
        sub_group_policy=[{
            "name": "task", "subGroupSize": 2, "minSubGroups": 2,
            "matchLabelKeys": ["volcano.sh/partition-id"],
            "networkTopology": {"mode": "hard", "highestTierAllowed": 1},
        }]
    )  # fmt: skip
    for pod in pods:
        Pod.objects.filter(pk=pod.pk).update(
            labels={"volcano.sh/partition-id": str(pod.task_index // 2)}
        )
    return group, pods


def test_a_partitioned_gang_places_each_partition_inside_one_leaf_and_exports_its_policy() -> None:
    use_conf(TOPOLOGY_CONF)
    two_leaves()
    running("blocker", "n1", 1)  # leaf-1 keeps 7 CPUs: one partition there, one on leaf-2
    running("other", "n3", 1)
    _group, pods = partitioned_gang("train")

    live = read_snapshot().cluster
    (policy,) = live.jobs["default/train"].sub_group_policy
    assert (policy.sub_group_size, policy.min_sub_groups) == (2, 2)
    text = snapshot_to_scenario(live, conf_text=TOPOLOGY_CONF, name="live")
    assert load_scenario(text).cluster.jobs["default/train"].sub_group_policy == (policy,)

    run_once()

    where = dict(Pod.objects.filter(pk__in=[p.pk for p in pods]).values_list("name", "node__name"))
    leaf_of = {"n1": "leaf-1", "n2": "leaf-1", "n3": "leaf-2", "n4": "leaf-2"}
    first = {leaf_of[where["train-task-0"]], leaf_of[where["train-task-1"]]}
    second = {leaf_of[where["train-task-2"]], leaf_of[where["train-task-3"]]}
    assert len(first) == 1
    assert len(second) == 1
