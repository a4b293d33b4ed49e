"""Numatopology (``nodeinfo.volcano.sh/v1alpha1``) as a manifest, in the CRD's shape.

``spec.policies`` (``CPUManagerPolicy``, ``TopologyManagerPolicy``), ``spec.resReserved``
(resource -> quantity string), ``spec.numares`` (resource -> ``{allocatable: <cpuset>,
capacity: <int>}``), ``spec.cpuDetail`` (CPU id -> ``{numa, socket, core}``, zeros omitted as
the API omits them) and ``spec.podAllocations`` (``[{uid, name, namespace,
containerAllocations: [{name, allocations: {resource: value}}]}]``). There is no status.
"""

from __future__ import annotations

import re
from typing import Any

from apis.wire import Fields, Manifest
from kube.manifest_kinds import Kind, Loaded
from kubelet.models import Numatopology

__all__ = ["NumatopologyKind"]

_POLICIES = ("CPUManagerPolicy", "TopologyManagerPolicy")
_CPUSET = re.compile(r"^\s*(\d+(-\d+)?)?(\s*,\s*\d+(-\d+)?)*\s*$")


def _string_map(spec: Fields, key: str) -> dict[str, str]:
    return spec.string_map(key)


def _numares(spec: Fields) -> dict[str, Any]:
    fields = spec.obj("numares")
    out: dict[str, Any] = {}
    for name in fields.names():
        entry = fields.obj(name)
        item: dict[str, Any] = {}
        allocatable = entry.string("allocatable")
        if allocatable:
            if not _CPUSET.match(allocatable):
                raise entry.error("allocatable", f"invalid cpuset {allocatable!r}")
            item["allocatable"] = allocatable
        capacity = entry.integer("capacity", 0, minimum=0)
        if capacity:
            item["capacity"] = capacity
        entry.done()
        out[name] = item
    return out


def _cpu_detail(spec: Fields) -> dict[str, Any]:
    fields = spec.obj("cpuDetail")
    out: dict[str, Any] = {}
    for name in fields.names():
        if not name.isdigit():
            raise fields.error(name, "CPU ids must be non-negative integers")
        entry = fields.obj(name)
        item = {}
        for key in ("numa", "socket", "core"):
            value = entry.integer(key, 0, minimum=0)
            if value:
                item[key] = value
        entry.done()
        out[name] = item
    return out


def _pod_allocations(spec: Fields) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for pod in spec.objects("podAllocations"):
        item: dict[str, Any] = {}
        for key in ("uid", "name", "namespace"):
            if value := pod.string(key):
                item[key] = value
        containers = []
        for container in pod.objects("containerAllocations"):
            entry: dict[str, Any] = {}
            if name := container.string("name"):
                entry["name"] = name
            if allocations := container.string_map("allocations"):
                entry["allocations"] = allocations
            container.done()
            containers.append(entry)
        if containers:
            item["containerAllocations"] = containers
        pod.done()
        out.append(item)
    return out


class NumatopologyKind(Kind):
    """``nodeinfo.volcano.sh/v1alpha1`` Numatopology (cluster-scoped, named after its node)."""

    api_version = "nodeinfo.volcano.sh/v1alpha1"
    kind = "Numatopology"
    resource = "numatopology.nodeinfo.volcano.sh"
    model = Numatopology
    namespaced = False
    spec_fields = ("policies", "res_reserved", "numares", "cpu_detail", "pod_allocations")

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        topology: Numatopology = loaded.instance
        spec = doc.obj("spec")
        topology.policies = _string_map(spec, "policies")
        for key in topology.policies:
            if key not in _POLICIES:
                raise spec.error(f"policies.{key}", f"expected one of {', '.join(_POLICIES)}")
        topology.res_reserved = _string_map(spec, "resReserved")
        topology.numares = _numares(spec)
        topology.cpu_detail = _cpu_detail(spec)
        topology.pod_allocations = _pod_allocations(spec)
        spec.done()

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        topology: Numatopology = instance
        spec: Manifest = {}
        if topology.policies:
            spec["policies"] = dict(topology.policies)
        if topology.res_reserved:
            spec["resReserved"] = dict(topology.res_reserved)
        if topology.numares:
            spec["numares"] = {k: dict(v) for k, v in topology.numares.items()}
        if topology.cpu_detail:
            spec["cpuDetail"] = {k: dict(v) for k, v in topology.cpu_detail.items()}
        if topology.pod_allocations:
            spec["podAllocations"] = [dict(p) for p in topology.pod_allocations]
        return {"spec": spec}
