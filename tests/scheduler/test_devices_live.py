"""Devices and NUMA live: simulated nodes register GPUs and NUMA cells (``kubelet.exporter``),
the scheduler's cache reads them, and a bind writes the cards and CPUs it chose."""

from __future__ import annotations

import pytest
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from core.models import Node, Pod
from kubelet.models import Numatopology
from kubelet.sim_devices import card_uuid
from scheduler.worker import run_once
from tests.scheduler.devices_kit import NUMA_CONF, VGPU_CONF, guaranteed, vgpu_gang
from tests.scheduler.factories import GI, make_gang, make_node, use_conf

pytestmark = pytest.mark.django_db


def test_two_vgpu_jobs_share_one_card_until_its_memory_runs_out() -> None:
    use_conf(VGPU_CONF)
    make_node("gpu-1", annotations={"volcano.sh/sim-gpus": "count=1,memory=16384"})
    first, second = vgpu_gang("a", 8000), vgpu_gang("b", 8000)

    run_once()

    node = Node.objects.get(name="gpu-1")
    card = card_uuid("gpu-1", 0)
    assert node.annotations["volcano.sh/node-vgpu-register"] == (
        f"{card},10,16384,NVIDIA-Tesla-T4,true,hami-core:"
    )
    assert node.allocatable["volcano.sh/vgpu-memory"] == 16384 * 1000
    assert node.capacity["volcano.sh/vgpu-number"] == 10 * 1000
    for pod in (first, second):
        pod.refresh_from_db()
        assert pod.node == node
        assert pod.annotations["volcano.sh/vgpu-ids-new"].startswith(f"{card},")

    third = vgpu_gang("c", 8000)  # a later session: the two bound pods are read back
    run_once()

    third.refresh_from_db()
    assert third.node is None
    scheduled = next(c for c in third.conditions if c["type"] == "PodScheduled")
    assert scheduled["status"] == "False"
    # 16,000 of the card's 16,384 MiB are held by the two pods read back from their rows.
    assert "Insufficient volcano.sh/vgpu-memory" in scheduled["message"]

    # Volcano's vGPU gauges: the card's share, memory and limit, and each pod's part.
    text = Client().get("/metrics").content.decode()
    samples = {
        (s.name, s.labels.get("devID"), s.labels.get("podName", "")): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
        if s.name.startswith("volcano_vgpu_device_")
    }
    assert samples[("volcano_vgpu_device_shared_number", card, "")] == 2
    assert samples[("volcano_vgpu_device_allocated_memory", card, "")] == 16000
    assert samples[("volcano_vgpu_device_memory_limit", card, "")] == 16384
    assert samples[("volcano_vgpu_device_allocated_cores", card, "")] == 0
    assert samples[("volcano_vgpu_device_memory_allocation_for_a_certain_pod", card,
                    "a-task-0")] == 8000  # fmt: skip
    assert (
        "# HELP volcano_vgpu_device_shared_number The number of vgpu tasks sharing this card"
        in text
    )


def test_a_single_numa_node_pod_lands_where_a_whole_cell_is_free() -> None:
    use_conf(NUMA_CONF)
    knob = {"volcano.sh/sim-numa": "cells=2,policy=single-numa-node"}
    split, whole = (
        make_node("split", cpu=8, annotations=knob),
        make_node("whole", cpu=8, annotations=knob),
    )
    # Three CPUs of each cell of "split" are taken: 2 free in each, 4 in all.
    for index in range(2):
        Pod.objects.create(
            name=f"held-{index}", namespace="default", node=split, phase="Running",
            spec=guaranteed(3), requests={"cpu": 3000, "memory": GI}, cpu_milli=3000,
            memory_milli=GI)  # fmt: skip
    run_once()  # the exporter publishes both nodes; the kubelet gives the held pods CPUs
    topo = Numatopology.objects.get(name="split")
    assert topo.numares["cpu"]["allocatable"] == "3,7"
    # "whole" is busier in total but has a whole cell free.
    Pod.objects.create(name="busy", namespace="default", node=whole, phase="Running",
                       spec=guaranteed(4), requests={"cpu": 4000, "memory": GI}, cpu_milli=4000,
                       memory_milli=GI)  # fmt: skip
    run_once()
    assert Numatopology.objects.get(name="whole").numares["cpu"]["allocatable"] == "4-7"
    _, (pod,) = make_gang("numa", replicas=1, cpu=2, spec=guaranteed(2))
    Pod.objects.filter(pk=pod.pk).update(
        annotations={"volcano.sh/numa-topology-policy": "single-numa-node"}
    )

    run_once()

    pod.refresh_from_db()
    assert pod.node is not None
    assert pod.node.name == "whole"
    allocations = Numatopology.objects.get(name="whole").pod_allocations
    mine = next(a for a in allocations if a["uid"] == str(pod.uid))
    assert mine["containerAllocations"][0]["allocations"]["cpu"] in ("4-5", "6-7")


def test_a_single_numa_node_pod_waits_while_free_cpus_span_two_cells() -> None:
    use_conf(NUMA_CONF)
    split = make_node("split", cpu=8, annotations={"volcano.sh/sim-numa": "cells=2"})
    for index in range(2):
        Pod.objects.create(
            name=f"held-{index}", namespace="default", node=split, phase="Running",
            spec=guaranteed(3), requests={"cpu": 3000, "memory": GI}, cpu_milli=3000,
            memory_milli=GI)  # fmt: skip
    _, (pod,) = make_gang("numa", replicas=1, cpu=2, spec=guaranteed(2))
    Pod.objects.filter(pk=pod.pk).update(
        annotations={"volcano.sh/numa-topology-policy": "single-numa-node"}
    )

    run_once()

    pod.refresh_from_db()
    assert pod.node is None  # 2 CPUs are free, but one in each cell
    scheduled = next(c for c in pod.conditions if c["type"] == "PodScheduled")
    assert scheduled["reason"] == "Unschedulable"
    assert "numa" in scheduled["message"].lower(), scheduled


GPUSHARE_CONF = VGPU_CONF.replace(
    "deviceshare.VGPUEnable: true\n      deviceshare.SchedulePolicy: binpack",
    "deviceshare.GPUSharingEnable: true",
)


def gpushare_gang(name: str, memory: int) -> Pod:
    asked = {"volcano.sh/gpu-memory": str(memory)}
    spec = {"containers": [{"name": "main", "image": "cuda", "resources": {
        "requests": {"cpu": "1", "memory": "1Gi", **asked}, "limits": asked}}]}  # fmt: skip
    _, (pod,) = make_gang(name, replicas=1, spec=spec)
    Pod.objects.filter(pk=pod.pk).update(
        requests={"cpu": 1000, "memory": GI, "volcano.sh/gpu-memory": memory * 1000}
    )
    return pod


def test_gpushare_books_each_pod_on_a_card_with_room_across_sessions() -> None:
    use_conf(GPUSHARE_CONF)
    make_node("share-1", annotations={"volcano.sh/sim-gpus": "count=2,memory=10000,mode=gpushare"})
    first = gpushare_gang("a", 6000)
    run_once()
    second = gpushare_gang("b", 6000)  # the first pod's card is read back from its annotation
    run_once()
    third = gpushare_gang("c", 6000)  # 8,000 MiB free in all, but 4,000 on each card
    run_once()

    for pod in (first, second, third):
        pod.refresh_from_db()
    assert {first.annotations["volcano.sh/gpu-index"],
            second.annotations["volcano.sh/gpu-index"]} == {"0", "1"}  # fmt: skip
    assert third.node is None
    assert "volcano.sh/gpu-index" not in third.annotations
    scheduled = next(c for c in third.conditions if c["type"] == "PodScheduled")
    # The node has the memory in all; no card has it (deviceshare's reason, not node fit's).
    assert "no enough gpu memory on node share-1" in scheduled["message"], scheduled


def test_a_vgpu_pod_waits_when_no_single_card_has_its_memory() -> None:
    use_conf(VGPU_CONF)
    make_node("gpu-2", annotations={"volcano.sh/sim-gpus": "count=2,memory=16384"})
    first, second = vgpu_gang("a", 10000), vgpu_gang("b", 10000)
    run_once()
    third = vgpu_gang("c", 10000)  # 12,768 MiB free on the node, 6,384 on each card
    run_once()

    for pod in (first, second, third):
        pod.refresh_from_db()
    cards = {pod.annotations["volcano.sh/vgpu-ids-new"].split(",")[0] for pod in (first, second)}
    assert cards == {card_uuid("gpu-2", 0), card_uuid("gpu-2", 1)}
    assert third.node is None
    scheduled = next(c for c in third.conditions if c["type"] == "PodScheduled")
    # The node has the memory in all: deviceshare refuses it, not node fit.
    assert "vgpuDeviceSharing error" in scheduled["message"], scheduled
