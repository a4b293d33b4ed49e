"""vGPU device model: registration, pod requests, the card-choice rules of Volcano's vgpu tests."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from scheduler.engine.api.devices.requests import ContainerDevices, DeviceContainers
from scheduler.engine.api.devices.vgpu import (
    ContainerRequest,
    VgpuDevices,
    container_requests,
    decode_pod_devices,
    encode_pod_devices,
    has_vgpu_request,
)
from scheduler.engine.api.node_info import NodeInfo
from scheduler.engine.api.resource import Resource

NOW = datetime(2024, 1, 1, 12, tzinfo=UTC)
ALLOCATABLE = {
    "volcano.sh/vgpu-number": 10_000,
    "volcano.sh/vgpu-memory": 30_000_000,
    "volcano.sh/vgpu-cores": 100_000,
}


def _node(register: str, **allocatable: int) -> NodeInfo:
    amounts = {**ALLOCATABLE, **{k.replace("_", "-"): v for k, v in allocatable.items()}}
    return NodeInfo(
        "n1",
        Resource({f"volcano.sh/{k.removeprefix('volcano.sh/')}": v for k, v in amounts.items()}),
        annotations={"volcano.sh/node-vgpu-register": register},
    )


def _cards(*cards: tuple[str, int, int]) -> VgpuDevices:
    text = "".join(
        f"{uuid},{slots},{memory},NVIDIA-V100,true,hami-core:" for uuid, slots, memory in cards
    )
    devices = VgpuDevices.from_node(_node(text))
    assert devices is not None
    return devices


def _asks(*containers: dict[str, int], requests: dict[str, int] | None = None) -> DeviceContainers:
    return DeviceContainers(
        containers=tuple(ContainerDevices(limits=c, requests=requests or {}) for c in containers)
    )


def test_registration_reads_every_card_in_order() -> None:
    devices = _cards(("GPU-a", 10, 30000), ("GPU-b", 4, 20000))

    assert [(c.index, c.uuid, c.slots, c.memory, c.type) for c in devices.cards] == [
        (0, "GPU-a", 10, 30000, "NVIDIA-V100"),
        (1, "GPU-b", 4, 20000, "NVIDIA-V100"),
    ]
    assert devices.mode == "hami-core"


@pytest.mark.parametrize(
    ("register", "zero"),
    [
        ("GPU-a,10,30000,NVIDIA,true,hami-core:", "vgpu_cores"),
        ("GPU-a,10,30000,NVIDIA,true,hami-core:", "vgpu_number"),
        ("GPU-a,10,30000,NVIDIA,true,hami-core", None),  # no ':' at all
        ("GPU-a,10,30000,NVIDIA,true:", None),  # a card with 5 fields
    ],
)
def test_registration_refused(register: str, zero: str | None) -> None:
    node = _node(register, **({zero: 0} if zero else {}))

    assert VgpuDevices.from_node(node) is None


def test_requests_come_from_limits_with_request_fallback() -> None:
    asks = _asks(
        {"volcano.sh/vgpu-number": 2, "volcano.sh/vgpu-memory": 1000},
        {},
        {"volcano.sh/vgpu-memory": 500},
        requests={"volcano.sh/vgpu-cores": 30},
    )

    assert container_requests(asks) == [
        ContainerRequest(2, 1000, 101, 30),
        ContainerRequest(1, 500, 101, 30),
    ]
    # Neither memory nor percentage: whole cards.
    assert container_requests(_asks({"volcano.sh/vgpu-number": 1})) == [
        ContainerRequest(1, 0, 100, 0)
    ]
    # Only requests never make a vGPU pod (Volcano looks at limits).
    only_requests = DeviceContainers(
        containers=(ContainerDevices({}, {"volcano.sh/vgpu-number": 1}),)
    )
    assert not has_vgpu_request(only_requests)
    assert container_requests(only_requests) == []


def test_assignment_annotation_round_trip_and_bad_entries() -> None:
    text = "GPU-a,NVIDIA,1000,10:GPU-b,NVIDIA,2000,0:;GPU-c,NVIDIA,3000,30"
    decoded = decode_pod_devices(text)

    assert [[u.uuid for u in c] for c in decoded] == [["GPU-a", "GPU-b"], ["GPU-c"]]
    assert (
        encode_pod_devices(decoded)
        == "GPU-a,NVIDIA,1000,10:GPU-b,NVIDIA,2000,0:;GPU-c,NVIDIA,3000,30:"
    )
    assert decode_pod_devices("GPU-a,NVIDIA,-1,0:GPU-b,NVIDIA,x,0:GPU-c,NVIDIA,5:") == [[]]


def test_booking_counts_slots_memory_cores_and_unbooking_gives_them_back() -> None:
    devices = _cards(("GPU-a", 10, 30000))
    devices.book("ns/p1", "GPU-a,NVIDIA,1000,10:", "ns/pg")
    devices.book("ns/p1", "GPU-a,NVIDIA,1000,10:", "ns/pg")  # a pod books a card once
    devices.book("ns/p2", "GPU-zzz,NVIDIA,1000,10:", "")  # unknown card: nothing

    card = devices.cards[0]
    assert (card.used_num, card.used_mem, card.used_core) == (1, 1000, 10)
    devices.unbook("ns/p1")
    assert (card.used_num, card.used_mem, card.used_core) == (0, 0, 0)


def test_binpack_score_counts_memory_after_placement() -> None:
    """Volcano's TestVgpuScore: 3000 of 30000 used, a 1000 MiB pod scores 100 x 4000/30000."""
    devices = _cards(("GPU-a", 10, 30000))
    devices.book("ns/r", "GPU-a,NVIDIA,3000,0:", "")

    fit = devices.fit(
        container_requests(_asks({"volcano.sh/vgpu-number": 1, "volcano.sh/vgpu-memory": 1000})),
        {},
        "",
        "binpack",
    )

    assert fit.fits
    assert fit.score == pytest.approx(100 * 4000 / 30000)
    spread = devices.fit(
        container_requests(_asks({"volcano.sh/vgpu-number": 1, "volcano.sh/vgpu-memory": 1000})),
        {},
        "",
        "spread",
    )
    assert spread.score == 0  # placement makes the card used: never "idle after placement"


def test_more_cards_than_the_node_has_refuses() -> None:
    devices = _cards(("GPU-a", 10, 30000))

    fit = devices.fit([ContainerRequest(2, 0, 100, 0)], {}, "", "")

    assert fit.reason == "no enough gpu cards on node n1"


def test_uuid_filter_without_a_match_names_the_annotations() -> None:
    devices = _cards(("GPU-a", 10, 30000))

    fit = devices.fit(
        [ContainerRequest(1, 100, 101, 0)], {"volcano.sh/vgpu-use-gpuuuid": "GPU-x"}, "", ""
    )

    assert fit.reason == (
        'no GPU matches UUID constraints volcano.sh/vgpu-use-gpuuuid="GPU-x", '
        'volcano.sh/vgpu-nouse-gpuuuid="" on node n1'
    )


def test_card_type_must_contain_nvidia() -> None:
    node = _node("GPU-a,10,30000,AMD-MI100,true,hami-core:")
    devices = VgpuDevices.from_node(node)
    assert devices is not None

    assert devices.fit([ContainerRequest(1, 100, 101, 0)], {}, "", "").reason == (
        "not enough gpu fitted on this node"
    )


SPREAD = {"volcano.sh/vgpu-podgroup-policy": "spread"}
ONE = [ContainerRequest(1, 4096, 101, 25)]


def _place(devices: VgpuDevices, uid: str, annotations: dict[str, str], group: str) -> str:
    """Fit and book one pod; return the card it took ('' when it did not fit)."""
    fit = devices.fit(ONE, annotations, group, "")
    if not fit.fits:
        return ""
    devices.allocate(uid, fit, group, NOW)
    return fit.containers[0][0].uuid


def test_spread_blocks_same_group_on_the_only_card() -> None:
    """Volcano's TestSpreadWithNoRoomFails / TestSpreadDifferentGroupsCanShare."""
    devices = _cards(("GPU-A", 4, 16384))

    assert _place(devices, "a", SPREAD, "default/job-1") == "GPU-A"
    assert _place(devices, "b", SPREAD, "default/job-1") == ""
    assert _place(devices, "c", SPREAD, "default/job-2") == "GPU-A"
    assert _place(devices, "d", {}, "default/job-1") == "GPU-A"  # no annotation: free to share


def test_spread_ignores_group_pods_with_no_usage() -> None:
    """Volcano's TestDeviceHasPodFromSameGroup: a same-group pod using nothing does not count."""
    devices = _cards(("GPU-A", 4, 16384))
    devices.book("idle", "GPU-A,NVIDIA,0,0:", "default/job-1")

    assert _place(devices, "a", SPREAD, "default/job-1") == "GPU-A"


@pytest.mark.parametrize(
    ("annotations", "card_type", "allowed"),
    [
        ({"nvidia.com/use-gputype": "A100"}, "NVIDIA-A100", True),
        ({"nvidia.com/use-gputype": "a100"}, "NVIDIA-A100", True),
        ({"nvidia.com/use-gputype": "V100,A100"}, "NVIDIA-A100", True),
        ({"nvidia.com/use-gputype": "V100,T4"}, "NVIDIA-A100", False),
        ({"nvidia.com/nouse-gputype": "A100"}, "NVIDIA-A100", False),
        ({"nvidia.com/nouse-gputype": "a100"}, "NVIDIA-A100", False),
        ({"nvidia.com/nouse-gputype": "V100,A100"}, "NVIDIA-A100", False),
        ({"nvidia.com/nouse-gputype": "V100,T4"}, "NVIDIA-A100", True),
        ({}, "NVIDIA-A100", True),
    ],
)
def test_card_type_annotations(annotations: dict[str, str], card_type: str, allowed: bool) -> None:
    """Volcano's TestCheckGPUtype."""
    devices = VgpuDevices.from_node(_node(f"GPU-a,10,30000,{card_type},true,hami-core:"))
    assert devices is not None

    assert devices.fit(ONE, annotations, "", "").fits is allowed


@pytest.mark.parametrize(
    ("use", "nouse", "card"),
    [
        ("", "", "GPU-B"),  # no constraint: highest index first
        (",", "", "GPU-B"),  # separator-only allowlist is ignored
        ("GPU-A", "", "GPU-A"),
        (" , GPU-A ,", "", "GPU-A"),  # empty entries ignored, entries trimmed
        ("GPU-", "", ""),  # no partial match
        ("", "GPU-B", "GPU-A"),
        ("GPU-A,GPU-B", "GPU-B", "GPU-A"),  # deny wins
        ("", "GPU-A,GPU-B", ""),
    ],
)
def test_uuid_annotations(use: str, nouse: str, card: str) -> None:
    """Volcano's TestCheckGPUUUID and TestGPUUUIDConstraints."""
    devices = _cards(("GPU-A", 4, 16384), ("GPU-B", 4, 16384))
    annotations = {"volcano.sh/vgpu-use-gpuuuid": use, "volcano.sh/vgpu-nouse-gpuuuid": nouse}

    fit = devices.fit(ONE, annotations, "", "")

    assert (fit.containers[0][0].uuid if fit.fits else "") == card
