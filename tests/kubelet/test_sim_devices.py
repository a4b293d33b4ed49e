"""The simulated device plugins and resource exporter: what a knobbed node registers and
publishes (``kubelet.sim_devices``, ``kubelet.exporter``)."""

from __future__ import annotations

from typing import Any

import pytest

from core.models import Node, Pod
from kubelet.exporter import reconcile
from kubelet.models import Numatopology
from kubelet.sim_devices import KnobError, card_uuid, parse_gpus, parse_numa

GI = 1024**3 * 1000


def node(name: str, notes: dict[str, str], cpu: int = 8) -> Node:
    alloc = {"cpu": cpu * 1000, "memory": 16 * GI, "pods": 110_000}
    return Node.objects.create(name=name, capacity=alloc, allocatable=alloc, annotations=notes)


def guaranteed(cpus: str) -> dict[str, Any]:
    asked = {"cpu": cpus, "memory": "1Gi"}
    return {"containers": [{"name": "main", "resources": {"requests": asked, "limits": asked}}]}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("memory=100", "count is required"),
        ("count=two", "count must be an integer"),
        ("count=1,mode=mig", "mode must be one of vgpu, gpushare, exclusive"),
        ("count=1,colour=green", "unknown key(s) colour"),
        ("count=1,type=A:B", "type may not contain"),
    ],
)
def test_a_bad_gpu_knob_names_its_fault(text: str, message: str) -> None:
    with pytest.raises(KnobError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_gpus(text)


def test_a_bad_numa_knob_names_its_fault() -> None:
    with pytest.raises(KnobError, match="do not split evenly"):
        parse_numa("cells=3", 8)
    with pytest.raises(KnobError, match="policy must be one of"):
        parse_numa("policy=strict", 8)


def test_card_uuids_are_stable_and_per_node() -> None:
    assert card_uuid("n1", 0) == card_uuid("n1", 0)
    assert len({card_uuid("n1", 0), card_uuid("n1", 1), card_uuid("n2", 0)}) == 3


@pytest.mark.django_db
def test_gpushare_and_exclusive_cards_register_their_resources() -> None:
    node("share", {"volcano.sh/sim-gpus": "count=2,memory=8000,mode=gpushare"})
    node("whole", {"volcano.sh/sim-gpus": "count=4,mode=exclusive"})
    node("broken", {"volcano.sh/sim-gpus": "count=0"})

    assert reconcile() == 2
    assert reconcile() == 0  # nothing changed: nothing written

    share = Node.objects.get(name="share")
    assert share.capacity["volcano.sh/gpu-memory"] == 16000 * 1000
    assert share.capacity["volcano.sh/gpu-number"] == 2000
    assert "volcano.sh/node-vgpu-register" not in share.annotations
    assert Node.objects.get(name="whole").allocatable["nvidia.com/gpu"] == 4000
    assert "nvidia.com/gpu" not in Node.objects.get(name="broken").allocatable
    # Switching the mode takes the other mode's resources off.
    Node.objects.filter(name="whole").update(
        annotations={"volcano.sh/sim-gpus": "count=1,mode=vgpu,slots=4"}
    )
    reconcile()
    whole = Node.objects.get(name="whole")
    assert "nvidia.com/gpu" not in whole.allocatable
    assert whole.allocatable["volcano.sh/vgpu-number"] == 4000


@pytest.mark.django_db
def test_exclusive_cpus_leave_the_allocatable_set_and_come_back_when_the_pod_ends() -> None:
    host = node("numa", {"volcano.sh/sim-numa": "cells=2,policy=restricted"})
    pod = Pod.objects.create(name="g", namespace="default", node=host, phase="Running",
                             spec=guaranteed("3"))  # fmt: skip
    Pod.objects.create(name="shared", namespace="default", node=host, phase="Running",
                       spec=guaranteed("1500m"))  # fmt: skip

    reconcile()

    topo = Numatopology.objects.get(name="numa")
    assert topo.policies["TopologyManagerPolicy"] == "restricted"
    assert topo.numares["cpu"] == {"allocatable": "3-7", "capacity": 8}
    (held,) = topo.pod_allocations
    assert held["uid"] == str(pod.uid)
    assert held["containerAllocations"] == [{"name": "main", "allocations": {"cpu": "0-2"}}]

    Pod.objects.filter(pk=pod.pk).update(phase="Succeeded")
    reconcile()
    topo.refresh_from_db()
    assert topo.numares["cpu"]["allocatable"] == "0-7"
    assert topo.pod_allocations == []


@pytest.mark.django_db
def test_the_numatopology_goes_with_its_node_but_a_hand_made_one_stays() -> None:
    host = node("numa", {"volcano.sh/sim-numa": "cells=1"})
    Numatopology.objects.create(name="real-node", policies={"CPUManagerPolicy": "static"})
    reconcile()
    assert set(Numatopology.objects.values_list("name", flat=True)) == {"numa", "real-node"}

    host.delete()
    reconcile()

    assert list(Numatopology.objects.values_list("name", flat=True)) == ["real-node"]


@pytest.mark.django_db
def test_a_pod_naming_a_card_its_node_lacks_fails_to_start() -> None:
    from kubelet.runtime import tick

    host = node("gpu", {"volcano.sh/sim-gpus": "count=1"})
    reconcile()
    mine = card_uuid("gpu", 0)
    good = Pod.objects.create(name="good", namespace="default", node=host,
                              annotations={"volcano.sh/vgpu-ids-new": f"{mine},NVIDIA,100,0:"})  # fmt: skip
    bad = Pod.objects.create(name="bad", namespace="default", node=host,
                             annotations={"volcano.sh/vgpu-ids-new": "GPU-elsewhere,NVIDIA,100,0:"})  # fmt: skip

    result = tick()

    good.refresh_from_db()
    bad.refresh_from_db()
    assert result.refused == 1
    assert (good.phase, good.start_time is not None) == ("Pending", True)
    assert (bad.phase, bad.reason) == ("Failed", "UnexpectedAdmissionError")
    assert "GPU-elsewhere not found on node gpu" in bad.message
