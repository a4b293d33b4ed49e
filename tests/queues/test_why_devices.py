"""Why a job waits, when devices, NUMA cells or a HyperNode refuse it: plain words over the
scheduler's own (folded) messages, as the job page and what-if read them."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from core.models import Pod
from queues.why import why_waiting
from scheduler.worker import run_once
from tests.scheduler.devices_kit import NUMA_CONF, VGPU_CONF, guaranteed, vgpu_gang
from tests.scheduler.factories import GI, make_gang, make_node, make_queue, use_conf

pytestmark = pytest.mark.django_db

GI_MIB = 1024 * 1000  # one GiB of a device memory resource (MiB), in milli-units


def _pod(name: str, message: str, *, requests: dict[str, int] | None = None,
         annotations: dict[str, str] | None = None) -> Any:  # fmt: skip
    return SimpleNamespace(
        name=name, namespace="default", task_name="worker", node_id=None, phase="Pending",
        nominated_node_name="", requests=requests or {}, annotations=annotations or {},
        conditions=[{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                     "message": message}],
    )  # fmt: skip


def _report(pods: list[Any], *, group: Any | None = None) -> Any:
    job = SimpleNamespace(phase="Pending", queue="default")
    queue = SimpleNamespace(name="default", state="Open", capability={}, allocated={})
    group = group or SimpleNamespace(phase="Inqueue", conditions=[], min_member=len(pods),
                                     min_resources={}, network_topology=None)  # fmt: skip
    return why_waiting(job, group=group, pods=pods, queue=queue)


def _only(report: Any, kind: str) -> Any:
    found = [r for r in report.reasons if r.kind == kind]
    assert len(found) == 1, [(r.kind, r.text) for r in report.reasons]
    return found[0]


def test_a_vgpu_refusal_says_how_much_free_gpu_memory_is_missing() -> None:
    raw = "0/3 nodes are unavailable: 3 hami-vgpuDeviceSharing error."
    report = _report([_pod("w-0", raw, requests={"volcano.sh/vgpu-memory": 10 * GI_MIB,
                                                  "volcano.sh/vgpu-number": 1000})])  # fmt: skip
    reason = _only(report, "devices")
    assert reason.text == "Task worker: no GPU has 10 GiB of free memory."
    assert reason.raw
    assert reason.details == (f"1 pod(s): {raw}",)


def test_a_vgpu_refusal_for_several_cards_says_each_card_needs_the_memory() -> None:
    raw = "0/2 nodes are unavailable: 2 hami-vgpuDeviceSharing error."
    pod = _pod("w-0", raw, requests={"volcano.sh/vgpu-memory": 8 * GI_MIB,
                                     "volcano.sh/vgpu-number": 2000})  # fmt: skip
    assert _only(_report([pod]), "devices").text == (
        "Task worker: no node has 2 GPUs with 4 GiB of free memory each."
    )


def test_gpushare_refusals_name_memory_and_idle_cards() -> None:
    raw = ("0/2 nodes are unavailable: 1 GpuShare no enough gpu memory on node a, "
           "1 GpuShare no enough gpu memory on node b.")  # fmt: skip
    pod = _pod("w-0", raw, requests={"volcano.sh/gpu-memory": 6 * GI_MIB})
    assert _only(_report([pod]), "devices").text == "Task worker: no GPU has 6 GiB of free memory."
    raw = "0/1 nodes are unavailable: 1 GpuNumber no enough gpu number on node a."
    pod = _pod("w-0", raw, requests={"volcano.sh/gpu-number": 2000})
    assert _only(_report([pod]), "devices").text == "Task worker: no node has 2 idle GPUs."


def test_exclusive_gpus_short_everywhere_say_how_many() -> None:
    raw = "0/4 nodes are unavailable: 4 Insufficient nvidia.com/gpu."
    pod = _pod("w-0", raw, requests={"nvidia.com/gpu": 4000})
    assert _only(_report([pod]), "devices").text == "Task worker: no node has 4 free GPUs."


def test_numa_refusal_says_no_cell_has_the_cpus() -> None:
    raw = "0/2 nodes are unavailable: 2 container main cannot be assigned by numa."
    pod = _pod("w-0", raw, requests={"cpu": 4000},
               annotations={"volcano.sh/numa-topology-policy": "single-numa-node"})  # fmt: skip
    reason = _only(_report([pod]), "numa")
    assert reason.text == "Task worker: no node has 4 CPUs free on one NUMA cell."
    assert raw in reason.details[0]


def test_numa_policy_mismatch_names_the_policy() -> None:
    raw = ("0/2 nodes are unavailable: 2 task topology policy[restricted] is different with "
           "node[single-numa-node].")  # fmt: skip
    pod = _pod("w-0", raw, requests={"cpu": 2000},
               annotations={"volcano.sh/numa-topology-policy": "restricted"})  # fmt: skip
    assert _only(_report([pod]), "numa").text == (
        "Task worker: no node runs the NUMA topology policy restricted it asks, with a static "
        "CPU manager."
    )


def test_other_refusals_keep_the_general_words() -> None:
    raw = "0/2 nodes are unavailable: 2 Insufficient cpu."
    report = _report([_pod("w-0", raw, requests={"cpu": 64000})])
    assert _only(report, "predicates").text == "Task worker: no node fits its pending pods."
    assert not [r for r in report.reasons if r.kind in ("devices", "numa")]


@pytest.mark.parametrize(
    ("topology", "words"),
    [
        ({"mode": "hard", "highestTierAllowed": 1}, "no tier-1 HyperNode has room for all 8 pods"),
        ({"mode": "hard", "highestTierAllowed": 2},
         "no HyperNode of tier 2 or below has room for all 8 pods"),
        ({"mode": "hard", "highestTierName": "rack"},
         "no HyperNode up to tier “rack” has room for all 8 pods"),
    ],
)  # fmt: skip
def test_a_hard_topology_gang_says_no_hypernode_has_room(
    topology: dict[str, Any], words: str
) -> None:
    gang = ("8/8 tasks in gang unschedulable: pod group is not ready, Pending:8, "
            "minAvailable:8; Pending: 8 Schedulable")  # fmt: skip
    group = SimpleNamespace(
        phase="Inqueue", min_member=8, min_resources={}, network_topology=topology,
        conditions=[{"type": "Unschedulable", "status": "True", "message": gang}],
    )  # fmt: skip
    pods = [_pod(f"w-{i}", gang) for i in range(8)]
    report = _report(pods, group=group)
    reason = _only(report, "topology")
    assert reason.text == f"Network topology (hard): {words} together."
    assert reason.raw
    assert reason.details == (gang,)
    assert not [r for r in report.reasons if r.kind == "gang"]


def test_a_soft_topology_gang_keeps_the_gang_words() -> None:
    gang = "2/2 tasks in gang unschedulable: pod group is not ready"
    group = SimpleNamespace(
        phase="Inqueue", min_member=2, min_resources={},
        network_topology={"mode": "soft", "highestTierAllowed": 1},
        conditions=[{"type": "Unschedulable", "status": "True", "message": gang}],
    )  # fmt: skip
    report = _report([_pod("w-0", gang), _pod("w-1", gang)], group=group)
    assert _only(report, "gang").text.startswith("Gang not satisfied")


# ---- against the engine's real refusals -----------------------------------------------------


def _real_report(pod: Pod) -> Any:
    pod.refresh_from_db()
    group = pod.pod_group
    assert group is not None
    group.refresh_from_db()
    job = SimpleNamespace(phase="Pending", queue=group.queue)
    return why_waiting(job, group=group, pods=[pod], queue=make_queue(group.queue))


def test_the_engines_vgpu_refusal_reads_as_missing_gpu_memory() -> None:
    use_conf(VGPU_CONF)
    make_node("why-gpu", annotations={"volcano.sh/sim-gpus": "count=2,memory=16384"})
    vgpu_gang("wa", 10240), vgpu_gang("wb", 10240)
    run_once()
    third = vgpu_gang("wc", 10240)  # 6 GiB free on each card
    run_once()
    reason = _only(_real_report(third), "devices")
    assert reason.text.endswith("no GPU has 10 GiB of free memory.")
    assert "hami-vgpuDeviceSharing error" in reason.details[0]


def test_the_engines_numa_refusal_reads_as_no_cell_with_the_cpus() -> None:
    use_conf(NUMA_CONF)
    split = make_node("why-numa", cpu=8, annotations={"volcano.sh/sim-numa": "cells=2"})
    for index in range(2):
        Pod.objects.create(
            name=f"why-held-{index}", namespace="default", node=split, phase="Running",
            spec=guaranteed(3), requests={"cpu": 3000, "memory": GI}, cpu_milli=3000,
            memory_milli=GI)  # fmt: skip
    _, (pod,) = make_gang("why-numa", replicas=1, cpu=2, spec=guaranteed(2))
    Pod.objects.filter(pk=pod.pk).update(
        annotations={"volcano.sh/numa-topology-policy": "single-numa-node"}
    )
    run_once()
    reason = _only(_real_report(pod), "numa")
    assert reason.text.endswith("no node has 2 CPUs free on one NUMA cell.")


def test_a_numa_refusal_without_known_requests_says_no_count() -> None:
    raw = "0/2 nodes are unavailable: 2 container main cannot be assigned by numa."
    assert _only(_report([_pod("w-0", raw)]), "numa").text == (
        "Task worker: no node has the CPUs it asks free on the NUMA cells its policy allows."
    )
