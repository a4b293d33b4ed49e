"""A node's GPUs and NUMA cells as the Nodes pages show them, read from the rows.

The cards are the ones the device plugins register (``kubelet.exporter`` for simulated nodes,
the real plugins' formats): vGPU cards from ``volcano.sh/node-vgpu-register``, gpushare cards
from the ``volcano.sh/gpu-memory`` / ``gpu-number`` capacity, whole cards from
``nvidia.com/gpu``. What each card holds comes from the live pods' annotations the scheduler
writes at bind (``volcano.sh/vgpu-ids-new``, ``volcano.sh/gpu-index``), parsed and booked by the
engine's own device code (``scheduler.engine.api.devices``), so the page, ``/metrics``
(``scheduler.metrics_devices``) and the next session agree. NUMA cells come from the node's
``Numatopology`` (``kubelet.models``): its CPU details, its free CPU set and its pods' exclusive
CPUs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q
from django.utils.translation import gettext as _

from apis.errors import ManifestError
from apis.quantity import parse_quantity
from core.models import Node, Pod
from kubelet.models import Numatopology
from scheduler.engine.api.devices.gpushare import GPU_MEMORY, GPU_NUMBER, GpuShareDevices, gpu_index
from scheduler.engine.api.devices.vgpu import ASSIGNED_IDS, NODE_REGISTER, VgpuDevices
from scheduler.engine.api.node_info import NodeInfo
from scheduler.engine.api.numa import (
    CPU_MANAGER_POLICY,
    TOPOLOGY_MANAGER_POLICY,
    format_cpuset,
)
from scheduler.engine.api.resource import Resource
from scheduler.engine.util.numa_manifest import parse_cpuset

__all__ = [
    "EXCLUSIVE_GPU",
    "CardPod",
    "GpuCardView",
    "NodeGpus",
    "NodeNuma",
    "NumaCell",
    "gpu_summaries",
    "node_gpus",
    "node_numa",
    "numa_policies",
    "some_node_has_gpus",
    "vgpu_devices",
]

EXCLUSIVE_GPU = "nvidia.com/gpu"
_LIVE = ("Pending", "Running")
_MIB_PER_GIB = 1024


def _gib(mib: int) -> str:
    """Return ``mib`` in GiB as the page prints it (``16``, ``2.5``)."""
    return f"{mib / _MIB_PER_GIB:.1f}".removesuffix(".0")


def _milli(values: Mapping[str, Any] | None) -> dict[str, int]:
    out: dict[str, int] = {}
    for name, value in (values or {}).items():
        try:
            out[name] = int(value)
        except (TypeError, ValueError):
            continue
    return out


def vgpu_devices(
    name: str, annotations: Mapping[str, Any] | None, allocatable: Mapping[str, Any] | None
) -> VgpuDevices | None:
    """Return a node's registered vGPU cards (nothing booked), or None when it has none."""
    notes = {k: str(v) for k, v in (annotations or {}).items()}
    if NODE_REGISTER not in notes:
        return None
    return VgpuDevices.from_node(
        NodeInfo(name=name, allocatable=Resource(_milli(allocatable)), annotations=notes)
    )


def _gpushare_devices(node: Node) -> GpuShareDevices | None:
    capacity = _milli(node.capacity)
    if GPU_MEMORY not in capacity or GPU_NUMBER not in capacity:
        return None
    info = NodeInfo(
        name=node.name,
        allocatable=Resource(_milli(node.allocatable)),
        annotations={k: str(v) for k, v in (node.annotations or {}).items()},
        capacity=Resource(capacity),
    )
    return GpuShareDevices.from_node(info)


@dataclass(frozen=True, slots=True)
class CardPod:
    """One pod on one card: who it is (its job, when a job owns it) and what it holds there."""

    namespace: str
    name: str
    job: str  # the owning Volcano Job's name ('' for none)
    memory: int  # MiB
    cores: int  # percent of the card (vGPU only)
    readable: bool = True  # False: a pod of a namespace the reader may not see


@dataclass(slots=True)
class GpuCardView:
    """One card as its row shows it."""

    index: int
    uuid: str
    type: str
    memory: int  # MiB
    memory_used: int  # MiB
    cores_used: int | None  # percent; None where the plugin does not share cores (gpushare)
    slots: int | None  # pods that may share it (vGPU); None for gpushare
    slots_used: int
    pods: list[CardPod] = field(default_factory=list)

    @property
    def short_uuid(self) -> str:
        """Return the UUID cut to ``GPU-1a2b3c4d…`` (the full one is in the row's title)."""
        return self.uuid if len(self.uuid) <= 14 else f"{self.uuid[:12]}…"

    @property
    def memory_text(self) -> str:
        """Return "used / total GiB"."""
        return _("%(used)s / %(total)s GiB") % {
            "used": _gib(self.memory_used), "total": _gib(self.memory)
        }  # fmt: skip

    @property
    def memory_percent(self) -> float:
        """Return the share of the card's memory held (for the bar)."""
        return round(100 * self.memory_used / self.memory, 1) if self.memory else 0.0

    @property
    def level(self) -> str:
        """Return the bar's class: ``bad`` from 90 %, ``warn`` from 70 %."""
        p = max(self.memory_percent, float(self.cores_used or 0))
        return "bad" if p >= 90 else "warn" if p >= 70 else ""

    @property
    def width(self) -> str:
        """Return the memory bar's width as CSS wants it."""
        return f"{min(self.memory_percent, 100.0):g}"

    @property
    def hidden_pods(self) -> int:
        """Return how many of its pods are in namespaces the reader may not see."""
        return sum(1 for p in self.pods if not p.readable)


@dataclass(slots=True)
class NodeGpus:
    """A node's GPUs: its cards (vGPU, gpushare) or its whole-card count (exclusive)."""

    mode: str  # vgpu, gpushare, exclusive
    cards: list[GpuCardView] = field(default_factory=list)
    used: int = 0  # exclusive: cards held by pods
    total: int = 0  # exclusive: cards allocatable

    @property
    def mode_text(self) -> str:
        """Return who registers the cards, in words."""
        return {
            "vgpu": _("vGPU (HAMi-core): cards shared by memory and cores"),
            "gpushare": _("gpushare: cards shared by memory"),
        }.get(self.mode, _("whole cards (nvidia.com/gpu)"))

    @property
    def summary(self) -> str:
        """Return the list's compact words: "3/4 cards · 22/64 GiB" or "2/4 GPUs"."""
        if self.mode == "exclusive":
            return _("%(used)s/%(total)s GPUs") % {"used": self.used, "total": self.total}
        busy = sum(1 for c in self.cards if c.slots_used)
        return _("%(busy)s/%(cards)s cards · %(used)s/%(total)s GiB") % {
            "busy": busy, "cards": len(self.cards),
            "used": _gib(sum(c.memory_used for c in self.cards)),
            "total": _gib(sum(c.memory for c in self.cards)),
        }  # fmt: skip

    @property
    def percent(self) -> float:
        """Return the share held (memory for shared cards, cards for whole ones)."""
        if self.mode == "exclusive":
            return round(100 * self.used / self.total, 1) if self.total else 0.0
        total = sum(c.memory for c in self.cards)
        return round(100 * sum(c.memory_used for c in self.cards) / total, 1) if total else 0.0

    @property
    def level(self) -> str:
        """Return the bar's class."""
        return "bad" if self.percent >= 90 else "warn" if self.percent >= 70 else ""

    @property
    def width(self) -> str:
        """Return the bar's width as CSS wants it."""
        return f"{min(self.percent, 100.0):g}"


def _who(pod: Pod, readable: frozenset[str] | None) -> tuple[str, str, str, bool]:
    job = pod.job.name if pod.job_id is not None and pod.job is not None else ""
    return pod.namespace, pod.name, job, readable is None or pod.namespace in readable


def node_gpus(
    node: Node, pods: Iterable[Pod], *, readable: frozenset[str] | None = None
) -> NodeGpus | None:
    """Return ``node``'s GPUs with what its live ``pods`` hold on each, or None without GPUs.

    ``pods``: the node's pods (finished ones are skipped), with their jobs loaded.
    """
    live = [p for p in pods if p.phase in _LIVE]
    vgpu = vgpu_devices(node.name, node.annotations, node.allocatable)
    if vgpu is not None:
        return NodeGpus("vgpu", _vgpu_rows(vgpu, live, readable))
    share = _gpushare_devices(node)
    if share is not None:
        return NodeGpus("gpushare", _gpushare_rows(share, live, readable))
    total = _milli(node.allocatable).get(EXCLUSIVE_GPU, 0) // 1000
    if total:
        used = sum(_milli(p.requests).get(EXCLUSIVE_GPU, 0) for p in live) // 1000
        return NodeGpus("exclusive", used=used, total=total)
    return None


def _vgpu_rows(
    devices: VgpuDevices, live: Sequence[Pod], readable: frozenset[str] | None
) -> list[GpuCardView]:
    who: dict[str, tuple[str, str, str, bool]] = {}
    for pod in live:
        text = str((pod.annotations or {}).get(ASSIGNED_IDS, ""))
        if text:
            uid = f"{pod.namespace}/{pod.name}"
            who[uid] = _who(pod, readable)
            devices.book(uid, text, "")
    return [
        GpuCardView(
            index=card.index, uuid=card.uuid, type=card.type, memory=card.memory,
            memory_used=card.used_mem, cores_used=card.used_core, slots=card.slots,
            slots_used=card.used_num,
            pods=sorted((CardPod(*who[uid][:3], usage.memory, usage.cores, who[uid][3])
                         for uid, usage in card.pods.items()), key=lambda p: (p.namespace, p.name)),
        )
        for card in devices.cards
    ]  # fmt: skip


def _gpushare_rows(
    devices: GpuShareDevices, live: Sequence[Pod], readable: frozenset[str] | None
) -> list[GpuCardView]:
    who: dict[str, tuple[str, str, str, bool]] = {}
    for pod in live:
        ids = gpu_index({k: str(v) for k, v in (pod.annotations or {}).items()})
        if ids:
            uid = f"{pod.namespace}/{pod.name}"
            who[uid] = _who(pod, readable)
            devices.book(uid, _milli(pod.requests).get(GPU_MEMORY, 0) // 1000, ids)
    rows = []
    for index in sorted(devices.cards):
        card = devices.cards[index]
        pods = sorted((CardPod(*who[uid][:3], memory, 0, who[uid][3])
                       for uid, memory in card.pods.items()),
                      key=lambda p: (p.namespace, p.name))  # fmt: skip
        rows.append(GpuCardView(index=index, uuid="", type="", memory=card.memory,
                                memory_used=sum(card.pods.values()), cores_used=None, slots=None,
                                slots_used=len(card.pods), pods=pods))  # fmt: skip
    return rows


# --- NUMA ---------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class CellHolder:
    """One pod holding exclusive CPUs of one cell."""

    namespace: str
    name: str
    cpus: str  # cpuset text, e.g. "4-7"
    readable: bool = True


@dataclass(slots=True)
class NumaCell:
    """One NUMA cell: its CPUs, those free for exclusive use, and who holds the others."""

    index: int
    cpus: list[int]
    free: list[int]
    reserved: list[int]
    holders: list[CellHolder] = field(default_factory=list)

    @property
    def cpus_text(self) -> str:
        """Return the cell's CPU ids as a cpuset."""
        return format_cpuset(set(self.cpus))

    @property
    def free_text(self) -> str:
        """Return the free CPU ids as a cpuset ('' when none)."""
        return format_cpuset(set(self.free))

    @property
    def reserved_text(self) -> str:
        """Return the reserved CPU ids as a cpuset ('' when none)."""
        return format_cpuset(set(self.reserved))

    @property
    def percent(self) -> float:
        """Return the share of the cell's CPUs not free for exclusive use."""
        return (
            round(100 * (len(self.cpus) - len(self.free)) / len(self.cpus), 1) if self.cpus else 0.0
        )

    @property
    def width(self) -> str:
        """Return the bar's width as CSS wants it."""
        return f"{min(self.percent, 100.0):g}"

    @property
    def level(self) -> str:
        """Return the bar's class."""
        return "bad" if self.percent >= 90 else "warn" if self.percent >= 70 else ""


@dataclass(slots=True)
class NodeNuma:
    """A node's Numatopology as the page shows it."""

    policy: str  # kubelet's TopologyManagerPolicy
    cpu_manager: str  # kubelet's CPUManagerPolicy
    cells: list[NumaCell]


def _cpus(text: Any) -> frozenset[int]:
    try:
        return parse_cpuset(str(text or ""), "cpu")
    except ManifestError:  # a hand-written row the engine cannot read shows no CPUs
        return frozenset()


def node_numa(name: str, *, readable: frozenset[str] | None = None) -> NodeNuma | None:
    """Return node ``name``'s NUMA cells (one query), or None when it publishes no Numatopology.

    A CPU is free for exclusive use when it is in ``numares.cpu.allocatable`` and not one of
    the ``resReserved`` CPUs (the lowest ids, kubelet's ``--reserved-cpus``).
    """
    row = Numatopology.objects.filter(name=name).first()
    if row is None:
        return None
    cells: dict[int, list[int]] = {}
    for cpu, detail in (row.cpu_detail or {}).items():
        try:
            number = int(cpu)
            cell = int((detail or {}).get("numa", 0))
        except (TypeError, ValueError, AttributeError):
            continue
        cells.setdefault(cell, []).append(number)
    if not cells:
        return None
    allocatable = _cpus(((row.numares or {}).get("cpu") or {}).get("allocatable"))
    try:  # a quantity, in whole CPUs: "2" or "2000m"
        reserved_count = parse_quantity((row.res_reserved or {}).get("cpu", "0")) // 1000
    except ValueError:
        reserved_count = 0
    every = sorted(c for cpus in cells.values() for c in cpus)
    reserved = set(every[:reserved_count])
    held: list[tuple[str, str, frozenset[int]]] = []
    for allocation in row.pod_allocations or []:
        if not isinstance(allocation, dict):
            continue
        cpus = frozenset().union(*(_cpus((ca.get("allocations") or {}).get("cpu"))
                                   for ca in allocation.get("containerAllocations") or ()
                                   if isinstance(ca, dict)))  # fmt: skip
        held.append((str(allocation.get("namespace", "")), str(allocation.get("name", "")), cpus))
    out = []
    for index in sorted(cells):
        ids = sorted(cells[index])
        mine = set(ids)
        holders = [
            CellHolder(ns, pod, format_cpuset(cpus & mine), readable is None or ns in readable)
            for ns, pod, cpus in held
            if cpus & mine
        ]
        out.append(NumaCell(index=index, cpus=ids,
                            free=[c for c in ids if c in allocatable and c not in reserved],
                            reserved=[c for c in ids if c in reserved], holders=holders))  # fmt: skip
    policies = row.policies or {}
    return NodeNuma(
        policy=str(policies.get(TOPOLOGY_MANAGER_POLICY, "")),
        cpu_manager=str(policies.get(CPU_MANAGER_POLICY, "")),
        cells=out,
    )


# --- the list: bounded reads for one page of nodes ----------------------------------------------
def _gpu_q() -> Q:
    return (
        Q(annotations__has_key=NODE_REGISTER)
        | Q(capacity__has_key=GPU_NUMBER)
        | Q(allocatable__has_key=EXCLUSIVE_GPU)
    )


def some_node_has_gpus() -> bool:
    """Return whether any node registers GPUs (one query): the list's GPU column shows then."""
    return Node.objects.filter(_gpu_q()).exists()


def gpu_summaries(nodes: Sequence[Node], held: Mapping[int, int]) -> dict[int, NodeGpus]:
    """Return the GPUs of the ``nodes`` that have any, by primary key: at most one pod query.

    Only the pods on those nodes that hold shared cards (their bind annotations) are read;
    ``held``: the ``nvidia.com/gpu`` milli-units each node's pods hold (the table's loads).
    """
    share_nodes = [
        n for n in nodes
        if NODE_REGISTER in (n.annotations or {}) or GPU_NUMBER in (n.capacity or {})
    ]  # fmt: skip
    pods: dict[int, list[Pod]] = {}
    if share_nodes:
        rows = Pod.objects.filter(
            Q(annotations__has_key=ASSIGNED_IDS) | Q(annotations__has_key="volcano.sh/gpu-index"),
            node_id__in=[n.pk for n in share_nodes], phase__in=_LIVE,
        ).only("namespace", "name", "phase", "annotations", "requests", "node_id", "job_id")  # fmt: skip
        for pod in rows:
            pods.setdefault(int(pod.node_id or 0), []).append(pod)
    out: dict[int, NodeGpus] = {}
    for node in nodes:
        if node.pk in out:
            continue
        gpus = _summary_gpus(node, pods.get(node.pk, []), held.get(node.pk, 0))
        if gpus is not None:
            out[node.pk] = gpus
    return out


def _summary_gpus(node: Node, pods: list[Pod], held: int) -> NodeGpus | None:
    vgpu = vgpu_devices(node.name, node.annotations, node.allocatable)
    if vgpu is not None:
        for pod in pods:
            vgpu.book(f"{pod.namespace}/{pod.name}", str(pod.annotations.get(ASSIGNED_IDS, "")), "")
        return NodeGpus("vgpu", [
            GpuCardView(c.index, c.uuid, c.type, c.memory, c.used_mem, c.used_core, c.slots,
                        c.used_num) for c in vgpu.cards
        ])  # fmt: skip
    share = _gpushare_devices(node)
    if share is not None:
        for pod in pods:
            ids = gpu_index({k: str(v) for k, v in (pod.annotations or {}).items()})
            share.book(f"{pod.namespace}/{pod.name}",
                       _milli(pod.requests).get(GPU_MEMORY, 0) // 1000, ids)  # fmt: skip
        return NodeGpus("gpushare", [
            GpuCardView(i, "", "", c.memory, sum(c.pods.values()), None, None, len(c.pods))
            for i, c in sorted(share.cards.items())
        ])  # fmt: skip
    total = _milli(node.allocatable).get(EXCLUSIVE_GPU, 0) // 1000
    if total:
        return NodeGpus("exclusive", used=held // 1000, total=total)
    return None


def numa_policies(names: Iterable[str]) -> dict[str, str]:
    """Return node name → its TopologyManagerPolicy, for those with a Numatopology (one query)."""
    rows = Numatopology.objects.filter(name__in=list(names)).values_list("name", "policies")
    return {name: str((p or {}).get(TOPOLOGY_MANAGER_POLICY, "")) for name, p in rows}
