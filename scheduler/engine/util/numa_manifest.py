"""Reading ``nodeinfo.volcano.sh/v1alpha1`` Numatopology manifests and pods' NUMA asks are read with the pod (``api.numa``).

Volcano's counterparts: the cache's Numatopology informer (``api.NumatopoInfo``) and
``v1qos.GetPodQOS`` with the ``volcano.sh/numa-topology-policy`` annotation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from apis.errors import ManifestError
from scheduler.engine.api.numa import CpuInfo, NumatopoInfo
from scheduler.engine.api.resource import CPU, Resource
from scheduler.engine.util.manifests import check_keys, mapping

__all__ = ["parse_cpuset", "read_numatopology"]

_SPEC_KEYS = frozenset({"policies", "numares", "cpuDetail", "resReserved", "podAllocations"})


def parse_cpuset(text: str, field: str) -> frozenset[int]:
    """Return the CPUs of a Linux cpuset list (``"0-3,8,10-11"``; empty is the empty set)."""
    out: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        low, sep, high = part.partition("-")
        try:
            first = int(low)
            last = int(high) if sep else first
        except ValueError as exc:
            raise ManifestError(field, f"invalid cpuset {text!r}") from exc
        if first < 0 or last < first:
            raise ManifestError(field, f"invalid cpuset {text!r}")
        out.update(range(first, last + 1))
    return frozenset(out)


def _int_field(value: object, field: str) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise ManifestError(field, f"expected an integer, got {value!r}")
    return value


def read_numatopology(obj: Mapping[str, Any], meta: Mapping[str, Any], path: str) -> NumatopoInfo:
    """Return the NUMA facts of a ``Numatopology`` manifest (named after its node)."""
    check_keys(obj, frozenset({"apiVersion", "kind", "metadata", "spec"}), path)
    spec = mapping(obj.get("spec"), f"{path}.spec")
    check_keys(spec, _SPEC_KEYS, f"{path}.spec")
    policies = {
        str(k): str(v) for k, v in mapping(spec.get("policies"), f"{path}.spec.policies").items()
    }
    cpus: frozenset[int] = frozenset()
    numares = mapping(spec.get("numares"), f"{path}.spec.numares")
    for res, raw in numares.items():
        entry = mapping(raw, f"{path}.spec.numares.{res}")
        check_keys(entry, frozenset({"allocatable", "capacity"}), f"{path}.spec.numares.{res}")
        if res == CPU:
            cpus = parse_cpuset(
                str(entry.get("allocatable") or ""), f"{path}.spec.numares.cpu.allocatable"
            )
    detail: dict[int, CpuInfo] = {}
    for key, raw in mapping(spec.get("cpuDetail"), f"{path}.spec.cpuDetail").items():
        where = f"{path}.spec.cpuDetail.{key}"
        try:
            cpu = int(str(key))
        except ValueError as exc:
            raise ManifestError(where, "CPU ids must be integers") from exc
        entry = mapping(raw, where)
        check_keys(entry, frozenset({"numa", "socket", "core"}), where)
        detail[cpu] = CpuInfo(
            numa=_int_field(entry.get("numa"), f"{where}.numa"),
            socket=_int_field(entry.get("socket"), f"{where}.socket"),
            core=_int_field(entry.get("core"), f"{where}.core"),
        )
    reserved = mapping(spec.get("resReserved"), f"{path}.spec.resReserved")
    reserved_cpu = None
    if CPU in reserved:
        reserved_cpu = Resource.parse({CPU: reserved[CPU]}, field=f"{path}.spec.resReserved").get(
            CPU
        )
    return NumatopoInfo(
        name=str(meta["name"]),
        policies=policies,
        cpu_allocatable=cpus,
        cpu_detail=detail,
        reserved_cpu_millis=reserved_cpu,
    )
