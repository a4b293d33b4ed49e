"""gpushare device model: registration from capacity, pod requests, card choice (Volcano's tests)."""

from __future__ import annotations

import pytest

from scheduler.engine.api.devices.gpushare import (
    GpuShareDevices,
    gpu_index,
    pod_gpu_memory,
    pod_gpu_number,
)
from scheduler.engine.api.devices.requests import ContainerDevices, DeviceContainers
from scheduler.engine.api.node_info import NodeInfo
from scheduler.engine.api.resource import Resource

MEMORY, NUMBER = "volcano.sh/gpu-memory", "volcano.sh/gpu-number"


def _node(memory: int, number: int, **annotations: str) -> NodeInfo:
    capacity = Resource({MEMORY: memory * 1000, NUMBER: number * 1000})
    return NodeInfo("n1", capacity, annotations=annotations, capacity=capacity)


def _pod(
    containers: list[int], init: list[int] | None = None, name: str = MEMORY
) -> DeviceContainers:
    return DeviceContainers(
        containers=tuple(ContainerDevices({name: v}, {}) for v in containers),
        init_containers=tuple(ContainerDevices({name: v}, {}) for v in init or []),
    )


@pytest.mark.parametrize(
    ("containers", "init", "want"),
    [([1, 3], [], 4), ([1, 3], [2], 4), ([1, 1], [3], 3)],
)
def test_pod_request_is_containers_sum_or_largest_init(
    containers: list[int], init: list[int], want: int
) -> None:
    """Volcano's TestGetGPUMemoryOfPod and TestGetGPUNumberOfPod."""
    assert pod_gpu_memory(_pod(containers, init)) == want
    assert pod_gpu_number(_pod(containers, init, NUMBER)) == want


def test_cards_split_capacity_and_drop_unhealthy_ones() -> None:
    devices = GpuShareDevices.from_node(_node(16001, 3, **{"volcano.sh/gpu-unhealthy-ids": "1,x"}))

    assert devices is not None
    assert {i: c.memory for i, c in devices.cards.items()} == {0: 5333, 2: 5333}


def test_no_devices_without_capacity_or_cards() -> None:
    assert GpuShareDevices.from_node(_node(16000, 0)) is None
    allocatable_only = NodeInfo("n1", Resource({MEMORY: 16_000_000, NUMBER: 2000}))
    assert GpuShareDevices.from_node(allocatable_only) is None


def test_over_subscribed_card_reports_zero_idle_and_is_not_offered() -> None:
    """Volcano's TestGetDevicesIdleGPUMemory_OverSubscribedCardReportsZero and its predicate."""
    devices = GpuShareDevices.from_node(_node(16000, 2))
    assert devices is not None
    devices.book("ns/big", 9000, [0])

    assert devices.cards[0].idle_memory() == 0
    assert devices.cards_with_memory(0) == [0, 1]
    assert devices.cards_with_memory(1) == [1]


def test_gpu_index_annotation() -> None:
    assert gpu_index({"volcano.sh/gpu-index": "0,2"}) == [0, 2]
    assert gpu_index({"volcano.sh/gpu-index": "0,x"}) == []
    assert gpu_index({}) == []


def test_filter_messages_are_volcanos() -> None:
    devices = GpuShareDevices.from_node(_node(16000, 2))
    assert devices is not None
    devices.book("ns/a", 8000, [0])

    assert devices.filter(_pod([9000]), sharing=True, number=False) == (
        "GpuShare no enough gpu memory on node n1"
    )
    assert devices.filter(_pod([2], name=NUMBER), sharing=False, number=True) == (
        "GpuNumber no enough gpu number on node n1"
    )
    assert devices.filter(_pod([1], name=NUMBER), sharing=False, number=True) == ""
    assert devices.allocate("ns/b", _pod([1], name=NUMBER), "7") == {
        "volcano.sh/predicate-time": "7",
        "volcano.sh/gpu-index": "1",
    }
