"""vGPU (HAMi-core): NVIDIA cards sliced by memory and cores among several pods.

Volcano's counterpart: ``pkg/scheduler/api/devices/nvidia/vgpu`` (hami-core mode). The vGPU
device plugin registers a node's cards in the node annotation ``volcano.sh/node-vgpu-register``
(``<uuid>,<slots>,<memory MiB>,<type>,<health>,<mode>:`` per card; a card's index is its place)
and the node's allocatable ``volcano.sh/vgpu-number``, ``vgpu-memory`` and ``vgpu-cores``. Pods on
the node hold the cards their annotation ``volcano.sh/vgpu-ids-new`` names
(``<uuid>,<type>,<MiB>,<cores>:`` per card, ``;`` between containers); the scheduler writes it,
with the other annotations of ``ASSIGNMENT_KEYS``, when it binds a pod.

Volcano's MIG mode needs the geometries of the ``volcano-vgpu-device-config`` ConfigMap; it is not
modelled: every node runs hami-core.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from scheduler.engine.api.devices.requests import DeviceContainers
from scheduler.engine.api.node_info import NodeInfo

__all__ = [
    "ASSIGNED_IDS",
    "BINPACK",
    "NODE_REGISTER",
    "SPREAD",
    "ContainerRequest",
    "VgpuCard",
    "VgpuDevices",
    "container_requests",
    "decode_pod_devices",
    "has_vgpu_request",
    "pod_group_key",
]

NODE_REGISTER = "volcano.sh/node-vgpu-register"
VGPU_NUMBER = "volcano.sh/vgpu-number"
VGPU_MEMORY = "volcano.sh/vgpu-memory"
VGPU_MEMORY_PERCENTAGE = "volcano.sh/vgpu-memory-percentage"
VGPU_CORES = "volcano.sh/vgpu-cores"

USE_GPU_TYPE = "nvidia.com/use-gputype"
NOUSE_GPU_TYPE = "nvidia.com/nouse-gputype"
USE_UUID = "volcano.sh/vgpu-use-gpuuuid"
NOUSE_UUID = "volcano.sh/vgpu-nouse-gpuuuid"
MODE = "volcano.sh/vgpu-mode"
PODGROUP_POLICY = "volcano.sh/vgpu-podgroup-policy"

ASSIGNED_TIME = "volcano.sh/vgpu-time"
ASSIGNED_IDS = "volcano.sh/vgpu-ids-new"
ASSIGNED_IDS_TO_ALLOCATE = "volcano.sh/devices-to-allocate"
ASSIGNED_NODE = "volcano.sh/vgpu-node"
BIND_TIME = "volcano.sh/bind-time"
BIND_PHASE = "volcano.sh/bind-phase"

NVIDIA = "NVIDIA"
HAMI_CORE = "hami-core"
BINPACK = "binpack"
SPREAD = "spread"
_WHOLE_CARD = 101  # Volcano's "no percentage asked" marker
_GROUP_KEYS = ("scheduling.k8s.io/group-name", "scheduling.volcano.sh/group-name")


@dataclass(slots=True, frozen=True)
class ContainerRequest:
    """What one container asks: ``number`` cards, each with ``memory`` MiB (or ``percentage``
    of the card when ``percentage`` is not 101) and ``cores`` percent."""

    number: int
    memory: int
    percentage: int
    cores: int

    def memory_on(self, card_memory: int) -> int:
        """Return the MiB this container takes on a card of ``card_memory`` MiB."""
        if self.percentage != _WHOLE_CARD:
            return int(card_memory * self.percentage / 100.0)
        return self.memory


def has_vgpu_request(devices: DeviceContainers | None) -> bool:
    """Return True when a container limits ``vgpu-memory`` or ``vgpu-number``."""
    if devices is None:
        return False
    return any(VGPU_MEMORY in c.limits or VGPU_NUMBER in c.limits for c in devices.containers)


def container_requests(devices: DeviceContainers | None) -> list[ContainerRequest]:
    """Return the request of each container asking vGPU, in container order.

    The card count comes from the ``vgpu-number`` limit (1 for a container that limits only
    ``vgpu-memory``); memory, memory percentage and cores from the limit, else the request.
    A container asking neither memory nor a percentage takes whole cards (100 %).
    """
    out: list[ContainerRequest] = []
    if devices is None:
        return out
    for c in devices.containers:
        if VGPU_NUMBER in c.limits:
            number = c.limits[VGPU_NUMBER]
        elif VGPU_MEMORY in c.limits:
            number = 1
        else:
            continue
        memory = c.limit_or_request(VGPU_MEMORY) or 0
        percentage = c.limit_or_request(VGPU_MEMORY_PERCENTAGE)
        if percentage is None:
            percentage = _WHOLE_CARD
        if percentage == _WHOLE_CARD and memory == 0:
            percentage = 100
        cores = c.limit_or_request(VGPU_CORES) or 0
        out.append(ContainerRequest(number, memory, percentage, cores))
    return out


@dataclass(slots=True, frozen=True)
class CardUse:
    """One card taken by one container: which card (by UUID), and how much of it."""

    uuid: str
    type: str
    memory: int
    cores: int


def decode_pod_devices(text: str) -> list[list[CardUse]]:
    """Return the cards ``volcano.sh/vgpu-ids-new`` names, per container.

    Entries missing a field, or with a non-numeric or negative memory or cores, are skipped.
    """
    pod: list[list[CardUse]] = []
    if not text:
        return pod
    for container in text.split(";"):
        uses: list[CardUse] = []
        for entry in container.split(":"):
            if "," not in entry:
                continue
            parts = entry.split(",")
            if len(parts) < 4 or not parts[2].isdigit() or not parts[3].isdigit():
                continue
            uses.append(CardUse(parts[0], parts[1], int(parts[2]), int(parts[3])))
        pod.append(uses)
    return pod


def encode_pod_devices(pod: list[list[CardUse]]) -> str:
    """Return the text of ``volcano.sh/vgpu-ids-new`` for cards chosen per container."""
    return ";".join(
        "".join(f"{u.uuid},{u.type},{u.memory},{u.cores}:" for u in container) for container in pod
    )


def pod_group_key(namespace: str, annotations: Mapping[str, str]) -> str:
    """Return ``<namespace>/<PodGroup>`` of a pod ('' when it names none)."""
    for key in _GROUP_KEYS:
        if annotations.get(key):
            return f"{namespace}/{annotations[key]}"
    return ""


def _names(text: str | None) -> list[str]:
    """Return the non-empty, trimmed entries of a comma-separated annotation."""
    return [part.strip() for part in (text or "").split(",") if part.strip()]


def _type_allowed(annotations: Mapping[str, str], card_type: str) -> bool:
    """Return whether ``nvidia.com/use-gputype`` / ``nouse-gputype`` let the pod use the card."""
    upper = card_type.upper()
    if USE_GPU_TYPE in annotations:
        return any(part.upper() in upper for part in annotations[USE_GPU_TYPE].split(","))
    if NOUSE_GPU_TYPE in annotations:
        return not any(part.upper() in upper for part in annotations[NOUSE_GPU_TYPE].split(","))
    return True


@dataclass(slots=True)
class CardUsage:
    """What one pod holds on one card, and its PodGroup (for the spread policy)."""

    memory: int
    cores: int
    group: str


@dataclass(slots=True)
class VgpuCard:
    """One registered card and what the pods booked on it use."""

    index: int
    uuid: str
    slots: int
    memory: int
    type: str
    used_num: int = 0
    used_mem: int = 0
    used_core: int = 0
    pods: dict[str, CardUsage] = field(default_factory=dict)


@dataclass(slots=True)
class Fit:
    """Where a pod's containers would go on a node, or why they cannot."""

    containers: list[list[CardUse]]
    score: float = 0.0
    reason: str = ""

    @property
    def fits(self) -> bool:
        """Return True when every container found its cards."""
        return not self.reason


@dataclass(slots=True)
class VgpuDevices:
    """A node's vGPU cards, in registration order."""

    node: str
    mode: str
    cards: list[VgpuCard]
    row: int = -1  # the node's row in the session's arrays

    @classmethod
    def from_node(cls, node: NodeInfo) -> VgpuDevices | None:
        """Return the registered cards, or None when the node registers no usable vGPU."""
        text = node.annotations.get(NODE_REGISTER)
        if text is None:
            return None
        for name in (VGPU_NUMBER, VGPU_CORES, VGPU_MEMORY):
            if node.allocatable.get(name) == 0:
                return None
        if ":" not in text:
            return None
        cards: list[VgpuCard] = []
        mode = HAMI_CORE
        for index, entry in enumerate(text.split(":")):
            if "," not in entry:
                continue
            items = entry.split(",")
            if len(items) < 6:
                return None
            cards.append(VgpuCard(index, items[0], _atoi(items[1]), _atoi(items[2]), items[3]))
            mode = HAMI_CORE  # anything but "mig" is hami-core; MIG is not modelled
        if not cards:
            return None
        return cls(node.name, mode, cards, node.index)

    # --- booking -----------------------------------------------------------------------------
    def book(self, uid: str, text: str, group: str) -> None:
        """Book pod ``uid`` on the cards its ``vgpu-ids-new`` names (``text``).

        Each entry goes to the first card whose UUID it contains; a pod already on that card
        books nothing more there (Volcano's HAMi-core ``AddPod``).
        """
        for container in decode_pod_devices(text):
            for use in container:
                for card in self.cards:
                    if card.uuid in use.uuid:
                        if uid not in card.pods:
                            card.pods[uid] = CardUsage(use.memory, use.cores, group)
                            card.used_num += 1
                            card.used_mem += use.memory
                            card.used_core += use.cores
                        break

    def unbook(self, uid: str) -> None:
        """Take pod ``uid`` off every card it holds."""
        for card in self.cards:
            usage = card.pods.pop(uid, None)
            if usage is not None:
                card.used_num -= 1
                card.used_mem -= usage.memory
                card.used_core -= usage.cores

    # --- choosing cards ------------------------------------------------------------------------
    def fit(
        self,
        requests: list[ContainerRequest],
        annotations: Mapping[str, str],
        group: str,
        policy: str,
        reserved: frozenset[int] = frozenset(),
    ) -> Fit:
        """Return the cards each container would take, in Volcano's card order, and the score.

        Works on copies of the counters: cards taken by earlier containers of the pod count.
        Cards at the positions in ``reserved`` have no free slot for this pod (deviceshare's
        exclusivity rules).
        """
        wanted_mode = annotations.get(MODE)
        if wanted_mode is not None and wanted_mode != self.mode:
            return Fit([], reason=f"pod required sharing mode {wanted_mode} is not the same as "
                       f"the node mode {self.mode}")  # fmt: skip
        used_num = [c.used_num for c in self.cards]
        used_mem = [c.used_mem for c in self.cards]
        used_core = [c.used_core for c in self.cards]
        allow, deny = _names(annotations.get(USE_UUID)), _names(annotations.get(NOUSE_UUID))
        spread_group = group if annotations.get(PODGROUP_POLICY) == SPREAD else ""
        chosen: list[list[CardUse]] = []
        score = 0.0
        for request in requests:
            left = request.number
            if left > len(self.cards):
                return Fit([], reason=f"no enough gpu cards on node {self.node}")
            matched_uuid = False
            uses: list[CardUse] = []
            for i in self._order(policy, used_num, used_mem):
                card = self.cards[i]
                if (allow or deny) and (
                    not card.uuid or (allow and card.uuid not in allow) or card.uuid in deny
                ):
                    continue
                matched_uuid = True
                if card.slots <= used_num[i] or i in reserved:
                    continue
                if spread_group and any(
                    u.group == spread_group and (u.memory > 0 or u.cores > 0)
                    for u in card.pods.values()
                ):
                    continue
                memory = request.memory_on(card.memory)
                if card.memory - used_mem[i] < memory:
                    continue
                if used_core[i] + request.cores > 100:
                    continue
                if request.cores == 100 and used_num[i] > 0:
                    continue
                if used_core[i] == 100 and request.cores == 0:
                    continue
                if NVIDIA not in card.type or not _type_allowed(annotations, card.type):
                    continue
                used_num[i] += 1
                used_mem[i] += memory
                used_core[i] += request.cores
                if left > 0:
                    left -= 1
                    uses.append(CardUse(card.uuid, NVIDIA, memory, request.cores))
                    score += _card_score(policy, used_num[i], used_mem[i], card.memory)
                if left == 0:
                    break
            if left > 0:
                if (allow or deny) and not matched_uuid:
                    return Fit([], reason=(
                        f'no GPU matches UUID constraints {USE_UUID}="{annotations.get(USE_UUID, "")}", '
                        f'{NOUSE_UUID}="{annotations.get(NOUSE_UUID, "")}" on node {self.node}'
                    ))  # fmt: skip
                return Fit([], reason="not enough gpu fitted on this node")
            chosen.append(uses)
        return Fit(chosen, score)

    def _order(self, policy: str, used_num: list[int], used_mem: list[int]) -> list[int]:
        """Return card positions in the order Volcano tries them under ``policy``."""
        positions = range(len(self.cards))
        if policy == BINPACK:
            return sorted(positions, key=lambda i: (-used_mem[i], self.cards[i].index))
        if policy == SPREAD:
            return sorted(positions, key=lambda i: (used_num[i], self.cards[i].index))
        return sorted(positions, key=lambda i: -self.cards[i].index)

    def allocate(self, uid: str, fit: Fit, group: str, now: datetime) -> dict[str, str]:
        """Book a pod on the cards ``fit`` chose; return the annotations the bind writes."""
        text = encode_pod_devices(fit.containers)
        self.book_containers(uid, fit.containers, group)
        seconds = str(int(now.timestamp()))
        return {
            ASSIGNED_NODE: self.node,
            ASSIGNED_TIME: seconds,
            ASSIGNED_IDS: text,
            ASSIGNED_IDS_TO_ALLOCATE: text,
            BIND_PHASE: "allocating",
            BIND_TIME: seconds,
        }

    def book_containers(self, uid: str, containers: list[list[CardUse]], group: str) -> None:
        """Book every card of ``containers`` for pod ``uid`` (its memory and cores summed)."""
        for container in containers:
            for use in container:
                for card in self.cards:
                    if card.uuid in use.uuid:
                        usage = card.pods.get(uid)
                        if usage is None:
                            card.pods[uid] = CardUsage(use.memory, use.cores, group)
                            card.used_num += 1
                        else:
                            usage.memory += use.memory
                            usage.cores += use.cores
                        card.used_mem += use.memory
                        card.used_core += use.cores
                        break


def _card_score(policy: str, used_num: int, used_mem: int, memory: int) -> float:
    """Return a chosen card's score after the tentative placement (Volcano's ``GPUScore``)."""
    if policy == BINPACK:
        return 100 * (used_mem / memory) if memory else 0.0
    if policy == SPREAD:
        return 100.0 if used_num == 0 else 0.0
    return 0.0


def _atoi(text: str) -> int:
    """Return Go's ``strconv.Atoi`` result, 0 when unreadable (as Volcano ignores the error)."""
    try:
        return int(text)
    except ValueError:
        return 0
