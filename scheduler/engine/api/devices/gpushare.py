"""gpushare: whole NVIDIA cards shared by GPU memory, or handed out by number.

Volcano's counterpart: ``pkg/scheduler/api/devices/nvidia/gpushare``. The volcano device plugin
registers a node's cards as node **capacity** ``volcano.sh/gpu-memory`` (all cards together) and
``volcano.sh/gpu-number``; every card gets total / number MiB (integer division), and the node
annotation ``volcano.sh/gpu-unhealthy-ids`` removes cards by index. A pod is booked on the cards
its annotation ``volcano.sh/gpu-index`` names; the scheduler writes that annotation (and
``volcano.sh/predicate-time``) when it binds a pod.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scheduler.engine.api.devices.requests import DeviceContainers
from scheduler.engine.api.node_info import NodeInfo

__all__ = [
    "GPU_INDEX",
    "GPU_MEMORY",
    "GPU_NUMBER",
    "PREDICATE_TIME",
    "UNHEALTHY_GPU_IDS",
    "GpuCard",
    "GpuShareDevices",
    "gpu_index",
    "pod_gpu_memory",
    "pod_gpu_number",
]

GPU_MEMORY = "volcano.sh/gpu-memory"
GPU_NUMBER = "volcano.sh/gpu-number"
GPU_INDEX = "volcano.sh/gpu-index"
PREDICATE_TIME = "volcano.sh/predicate-time"
UNHEALTHY_GPU_IDS = "volcano.sh/gpu-unhealthy-ids"


def _pod_limit(devices: DeviceContainers | None, name: str) -> int:
    """Return the containers' summed limit of ``name``, or the largest init container's."""
    if devices is None:
        return 0
    total = sum(c.limits.get(name, 0) for c in devices.containers)
    largest_init = max((c.limits.get(name, 0) for c in devices.init_containers), default=0)
    return max(total, largest_init)


def pod_gpu_memory(devices: DeviceContainers | None) -> int:
    """Return the GPU memory (MiB) a pod asks (``volcano.sh/gpu-memory`` limits)."""
    return _pod_limit(devices, GPU_MEMORY)


def pod_gpu_number(devices: DeviceContainers | None) -> int:
    """Return the whole cards a pod asks (``volcano.sh/gpu-number`` limits)."""
    return _pod_limit(devices, GPU_NUMBER)


def gpu_index(annotations: dict[str, str]) -> list[int]:
    """Return the cards ``volcano.sh/gpu-index`` names (none when absent or unreadable)."""
    value = annotations.get(GPU_INDEX)
    if value is None:
        return []
    try:
        return [int(part) for part in value.split(",")]
    except ValueError:
        return []


@dataclass(slots=True)
class GpuCard:
    """One card: its index, its memory and the GPU memory each pod booked on it asks."""

    index: int
    memory: int
    pods: dict[str, int] = field(default_factory=dict)

    def idle_memory(self) -> int:
        """Return the memory no booked pod asks (never below 0)."""
        return max(0, self.memory - sum(self.pods.values()))


@dataclass(slots=True)
class GpuShareDevices:
    """A node's gpushare cards, by index."""

    node: str
    cards: dict[int, GpuCard]

    @classmethod
    def from_node(cls, node: NodeInfo) -> GpuShareDevices | None:
        """Return the node's cards, or None when its capacity does not register both resources."""
        capacity = node.capacity
        if capacity is None:
            return None
        names = set(capacity.names())
        if GPU_MEMORY not in names or GPU_NUMBER not in names:
            return None
        number = capacity.get(GPU_NUMBER) // 1000
        if number <= 0:
            return None
        per_card = (capacity.get(GPU_MEMORY) // 1000) // number
        cards = {i: GpuCard(i, per_card) for i in range(number)}
        unhealthy = node.annotations.get(UNHEALTHY_GPU_IDS)
        if unhealthy is not None:
            for part in unhealthy.split(","):
                try:
                    cards.pop(int(part), None)
                except ValueError:
                    continue  # Volcano logs and skips an unreadable id
        return cls(node.name, cards)

    def book(self, uid: str, memory: int, ids: list[int]) -> None:
        """Book pod ``uid`` (asking ``memory`` MiB) on the cards ``ids`` the node has."""
        for i in ids:
            card = self.cards.get(i)
            if card is not None:
                card.pods[uid] = memory

    def unbook(self, uid: str, ids: list[int]) -> None:
        """Take pod ``uid`` off the cards ``ids`` (off every card when ``ids`` is empty)."""
        for card in self.cards.values():
            if not ids or card.index in ids:
                card.pods.pop(uid, None)

    def cards_with_memory(self, request: int) -> list[int]:
        """Return, lowest index first, the cards whose idle memory holds ``request`` MiB."""
        return sorted(i for i, card in self.cards.items() if card.idle_memory() >= request)

    def idle_cards(self, number: int) -> list[int]:
        """Return the ``number`` lowest-indexed cards no pod is booked on (none if too few)."""
        idle = sorted(i for i, card in self.cards.items() if not card.pods)
        return idle[:number] if len(idle) >= number else []

    def filter(self, devices: DeviceContainers | None, *, sharing: bool, number: bool) -> str:
        """Return why the pod does not fit these cards, in Volcano's words ('' when it fits)."""
        if sharing:
            memory = pod_gpu_memory(devices)
            if memory > 0 and not self.cards_with_memory(memory):
                return f"GpuShare no enough gpu memory on node {self.node}"
        if number:
            cards = pod_gpu_number(devices)
            if cards > 0 and not self.idle_cards(cards):
                return f"GpuNumber no enough gpu number on node {self.node}"
        return ""

    def allocate(
        self, uid: str, devices: DeviceContainers | None, predicate_time: str
    ) -> dict[str, str] | None:
        """Book the pod on its cards and return the annotations the bind writes (None: no room).

        ``predicate_time`` is the session's clock in Unix nanoseconds, as Volcano stamps it.

        By memory: the lowest-indexed card with room. By number: the lowest-indexed idle cards
        (Volcano takes them in Go map order, which is random; lowest first is one such order).
        """
        memory = pod_gpu_memory(devices)
        if memory > 0:
            fitting = self.cards_with_memory(memory)
            if not fitting:
                return None
            ids = fitting[:1]
        else:
            count = pod_gpu_number(devices)
            if count <= 0:
                return {}
            ids = self.idle_cards(count)
            if not ids:
                return None
        self.book(uid, memory, ids)
        return {
            PREDICATE_TIME: predicate_time,
            GPU_INDEX: ",".join(str(i) for i in ids),
        }
