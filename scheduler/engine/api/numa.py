"""NUMA facts the numa-aware plugin reads: a node's Numatopology and a pod's CPU asks.

Volcano's counterparts: ``api.NumatopoInfo`` (built from the ``nodeinfo.volcano.sh/v1alpha1``
Numatopology the resource exporter publishes per node) and ``api.TaskInfo.NumaInfo`` with the
QoS test of ``v1qos.GetPodQOS``. Only what numa-aware uses is kept: the kubelet policies, the
``cpu`` allocatable set, the CPU details (CPU -> NUMA node, socket, core) and reserved CPUs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scheduler.engine.api.resource import CPU, MEMORY, Resource

__all__ = [
    "CPU_MANAGER_POLICY",
    "NUMA_POLICY_ANNOTATION",
    "TOPOLOGY_MANAGER_POLICY",
    "CpuInfo",
    "NumaContainer",
    "NumaTask",
    "NumatopoInfo",
    "format_cpuset",
    "read_numa_task",
]

CPU_MANAGER_POLICY = "CPUManagerPolicy"
TOPOLOGY_MANAGER_POLICY = "TopologyManagerPolicy"
NUMA_POLICY_ANNOTATION = "volcano.sh/numa-topology-policy"


def format_cpuset(cpus: frozenset[int] | set[int]) -> str:
    """Return the Linux cpuset list of ``cpus`` (``"0-3,8"``), as kubelet writes it."""
    ranges: list[str] = []
    ordered = sorted(cpus)
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        ranges.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(ranges)


@dataclass(slots=True, frozen=True)
class CpuInfo:
    """Where one logical CPU sits (kubelet's ``topology.CPUInfo``)."""

    numa: int = 0
    socket: int = 0
    core: int = 0


@dataclass(slots=True)
class NumatopoInfo:
    """One node's Numatopology: kubelet policies, allocatable CPUs, CPU details, reserved."""

    name: str
    policies: dict[str, str] = field(default_factory=dict)
    cpu_allocatable: frozenset[int] = frozenset()
    cpu_detail: dict[int, CpuInfo] = field(default_factory=dict)
    reserved_cpu_millis: int | None = None  # spec.resReserved.cpu, None when absent

    def numa_nodes(self) -> list[int]:
        """Return the NUMA node ids the CPU details name, ascending."""
        return sorted({c.numa for c in self.cpu_detail.values()})


@dataclass(slots=True, frozen=True)
class NumaContainer:
    """One container's CPU ask: its name and cpu request in millicores (None: no cpu request)."""

    name: str
    cpu_millis: int | None


@dataclass(slots=True, frozen=True)
class NumaTask:
    """A Guaranteed pod's NUMA ask: the pod's policy annotation and its containers' CPUs."""

    policy: str
    containers: tuple[NumaContainer, ...]


def _map(value: object) -> Mapping[str, Any]:
    """Return ``value`` as a mapping (the pod spec was checked when its request was read)."""
    return value if isinstance(value, Mapping) else {}


def _guaranteed(containers: list[tuple[Resource, Resource]]) -> bool:
    """Kubernetes' Guaranteed QoS: every container limits cpu and memory, requests equal."""
    if not containers:
        return False
    for requests, limits in containers:
        for name in (CPU, MEMORY):
            if limits.get(name) <= 0 or requests.get(name) != limits.get(name):
                return False
    return True


def read_numa_task(
    spec: Mapping[str, Any], annotations: Mapping[str, str], field: str
) -> NumaTask | None:
    """Return the NUMA ask of a pod spec, or None when the pod is not Guaranteed."""
    pairs: list[tuple[Resource, Resource]] = []
    names: list[str] = []
    requested: list[bool] = []
    for key in ("initContainers", "containers"):
        raw_list = spec.get(key) or []
        if not isinstance(raw_list, list):
            return None
        for i, raw in enumerate(raw_list):
            container = _map(raw)
            res = _map(container.get("resources"))
            raw_req = _map(res.get("requests"))
            raw_lim = _map(res.get("limits"))
            if CPU not in raw_lim or MEMORY not in raw_lim:
                return None  # not Guaranteed: skip parsing (the common case stays cheap)
            merged = dict(raw_req)
            for name, value in raw_lim.items():
                merged.setdefault(name, value)  # a missing request defaults to its limit
            req = Resource.parse(merged, field=f"{field}.{key}[{i}].resources.requests")
            lim = Resource.parse(raw_lim, field=f"{field}.{key}[{i}].resources.limits")
            pairs.append((req, lim))
            if key == "containers":
                names.append(str(container.get("name") or ""))
                requested.append(CPU in merged)
    if not _guaranteed(pairs):
        return None
    main = pairs[len(pairs) - len(names) :]
    return NumaTask(
        policy=str(annotations.get(NUMA_POLICY_ANNOTATION, "")),
        containers=tuple(
            NumaContainer(name, req.get(CPU) if asked else None)
            for name, (req, _), asked in zip(names, main, requested, strict=True)
        ),
    )
