"""The simulated device plugins and resource exporter: knobbed nodes register GPUs and NUMA.

Volcano's counterparts run on each real node: the vGPU device plugin (writes
``volcano.sh/node-vgpu-register`` and the ``volcano.sh/vgpu-*`` resources), the gpushare and
NVIDIA device plugins (``volcano.sh/gpu-*``, ``nvidia.com/gpu``), and the resource exporter
(``volcano-sh/resource-exporter``), which publishes the node's ``Numatopology`` from the
kubelet's CPU manager state. Here one level-triggered controller (run by the worker before each
session, ``KubeletConfig.ready``) does their part for every node whose knobs
(``kubelet.sim_devices``) ask for it:

1. ``volcano.sh/sim-gpus``: the registration annotation and the extended resources in the
   node's capacity and allocatable (device resources of the other modes are taken off).
2. ``volcano.sh/sim-numa``: the node's Numatopology (created, kept up to date), with policies
   ``CPUManagerPolicy: static`` and the knob's TopologyManagerPolicy, ``cpuDetail``, the reserved
   CPUs (``resReserved``), ``podAllocations`` and ``numares.cpu``: capacity the node's CPUs,
   allocatable those not given exclusively to a pod, as the exporter reads them from kubelet's
   ``cpu_manager_state``. A live pod on the node keeps the CPUs the scheduler chose for it at
   bind (``scheduler.cache.numa_binds`` writes its podAllocation); a Guaranteed pod asking whole
   CPUs without one gets them from the static CPU manager here (the lowest NUMA cell that holds
   them all, else the cells in order). A pod that ended gives its CPUs back.
3. A Numatopology the exporter made (label ``app.kubernetes.io/managed-by``) goes with its node,
   or with the node's knob.

Each write goes through ``save()``, so it bumps the resourceVersion and reaches watchers;
nothing is written when nothing changed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from apis.errors import QuantityError
from apis.quantity import parse_quantity
from core.models import Node, Pod
from kubelet.models import Numatopology
from kubelet.sim_devices import (
    DEVICE_RESOURCES,
    SIM_GPUS,
    SIM_NUMA,
    VGPU_REGISTER,
    KnobError,
    NumaKnob,
    parse_numa,
    registered,
)

__all__ = ["EXPORTER", "MANAGED_BY", "guaranteed_cpus", "numa_spec", "reconcile"]

logger = logging.getLogger(__name__)

MANAGED_BY = "app.kubernetes.io/managed-by"
EXPORTER = "volcano-sim-exporter"
ACTIVE = ("Pending", "Running")


def reconcile(now: datetime | None = None) -> int:
    """Bring every knobbed node's registration and Numatopology up to date; return the writes."""
    writes = 0
    for node in Node.objects.filter(annotations__has_key=SIM_GPUS):
        writes += _register_devices(node)
    writes += _export_numa()
    return writes


# -- 1. devices -----------------------------------------------------------------------------


def _register_devices(node: Node) -> int:
    try:
        notes, resources = registered(node.name, node.annotations)
    except KnobError as exc:
        logger.warning("node %s: %s; no devices registered", node.name, exc)
        return 0
    annotations = {k: v for k, v in node.annotations.items() if k != VGPU_REGISTER}
    annotations.update(notes)
    capacity = _with_devices(node.capacity, resources)
    allocatable = _with_devices(node.allocatable, resources)
    if (annotations, capacity, allocatable) == (node.annotations, node.capacity, node.allocatable):
        return 0
    node.annotations, node.capacity, node.allocatable = annotations, capacity, allocatable
    node.save(update_fields=["annotations", "capacity", "allocatable"])
    return 1


def _with_devices(resources: Mapping[str, int], devices: Mapping[str, int]) -> dict[str, int]:
    out = {k: v for k, v in resources.items() if k not in DEVICE_RESOURCES}
    out.update(devices)
    return out


# -- 2. NUMA --------------------------------------------------------------------------------


def _export_numa() -> int:
    writes = 0
    knobs: dict[str, tuple[int, NumaKnob]] = {}
    for pk, name, notes, capacity in Node.objects.filter(annotations__has_key=SIM_NUMA).values_list(
        "pk", "name", "annotations", "capacity"
    ):
        try:
            knobs[name] = (
                pk,
                parse_numa(str(notes[SIM_NUMA]), int(capacity.get("cpu", 0)) // 1000),
            )
        except KnobError as exc:
            logger.warning("node %s: %s; no Numatopology published", name, exc)
    existing = {t.name: t for t in Numatopology.objects.all()}
    # 3. Those the exporter made for a node that is gone, or no longer asks for one.
    for name, topology in existing.items():
        if name not in knobs and topology.labels.get(MANAGED_BY) == EXPORTER:
            topology.delete()
            writes += 1
    pods: dict[int, list[tuple[Any, ...]]] = {}
    live = Pod.objects.filter(node_id__in=[pk for pk, _ in knobs.values()], phase__in=ACTIVE)
    for node_pk, *pod in live.order_by("created_at", "pk").values_list(
        "node_id", "uid", "name", "namespace", "spec"
    ):
        pods.setdefault(node_pk, []).append(tuple(pod))
    for name, (pk, knob) in knobs.items():
        found = existing.get(name)
        row = found or Numatopology(name=name, labels={MANAGED_BY: EXPORTER})
        spec = numa_spec(knob, pods.get(pk, ()), row.pod_allocations or [])
        current = (row.policies, row.res_reserved, row.numares, row.cpu_detail,
                   row.pod_allocations)  # fmt: skip
        if found is not None and current == spec:
            continue
        row.policies, row.res_reserved, row.numares, row.cpu_detail, row.pod_allocations = spec
        row.save()
        writes += 1
    return writes


def _cell_cpus(knob: NumaKnob) -> list[list[int]]:
    per = knob.cpus // knob.cells
    return [list(range(cell * per, (cell + 1) * per)) for cell in range(knob.cells)]


def _cpuset(cpus: Iterable[int]) -> str:
    ordered, ranges, i = sorted(set(cpus)), [], 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        ranges.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(ranges)


def _parse_cpuset(text: str) -> set[int]:
    out: set[int] = set()
    for part in text.split(","):
        low, sep, high = part.strip().partition("-")
        if low.isdigit() and (not sep or high.isdigit()):
            out.update(range(int(low), int(high if sep else low) + 1))
    return out


def guaranteed_cpus(spec: Mapping[str, Any]) -> int:
    """Return the whole CPUs the static CPU manager gives a pod exclusively (0: shared pool).

    Kubernetes gives them to the containers of a Guaranteed pod (every container has cpu and
    memory limits, requests equal to them) whose cpu request is a whole number.
    """
    total = 0
    containers = spec.get("containers") or []
    if not containers:
        return 0
    for container in containers:
        resources = container.get("resources") or {}
        limits, requests = resources.get("limits") or {}, resources.get("requests") or {}
        try:
            asked = {n: parse_quantity(limits[n]) for n in ("cpu", "memory")}
            if any(n in requests and parse_quantity(requests[n]) != asked[n] for n in asked):
                return 0
        except (KeyError, QuantityError):
            return 0
        if asked["cpu"] % 1000:
            return 0
        total += asked["cpu"] // 1000
    return total


def numa_spec(knob: NumaKnob, pods: Iterable[tuple[Any, ...]], allocations: list[dict[str, Any]]
              ) -> tuple[dict[str, str], dict[str, str], dict[str, Any], dict[str, Any],
                         list[dict[str, Any]]]:  # fmt: skip
    """Return (policies, resReserved, numares, cpuDetail, podAllocations) for the node.

    ``pods``: its live pods as ``(uid, name, namespace, spec)``, oldest first; ``allocations``:
    the podAllocations it has now (those of live pods are kept).
    """
    cells = _cell_cpus(knob)
    reserved = set(range(knob.reserved))
    kept = {str(a.get("uid", "")): a for a in allocations}
    taken: set[int] = set()
    out: list[dict[str, Any]] = []
    pending: list[tuple[Any, ...]] = []
    for uid, name, namespace, spec in pods:
        held = kept.get(str(uid))
        if held is not None:
            cpus = {c for ca in held.get("containerAllocations") or ()
                    for c in _parse_cpuset(str((ca.get("allocations") or {}).get("cpu", "")))}  # fmt: skip
            if not cpus & taken:
                taken |= cpus
                out.append(held)
                continue
        pending.append((uid, name, namespace, spec))
    for uid, name, namespace, spec in pending:
        wanted = guaranteed_cpus(spec)
        if not wanted:
            continue
        free_cells = [[c for c in cell if c not in taken and c not in reserved] for cell in cells]
        chosen = next((cell[:wanted] for cell in free_cells if len(cell) >= wanted), None)
        if chosen is None:
            pool = [c for cell in free_cells for c in cell]
            if len(pool) < wanted:
                continue  # no room: kubelet would refuse the pod; it keeps the shared pool
            chosen = pool[:wanted]
        taken |= set(chosen)
        first = ((spec.get("containers") or [{}])[0]).get("name", "")
        out.append({"uid": str(uid), "name": name, "namespace": namespace,
                    "containerAllocations": [{"name": first,
                                              "allocations": {"cpu": _cpuset(chosen)}}]})  # fmt: skip
    # Reserved CPUs stay in the allocatable set: the scheduler takes ``resReserved`` out itself.
    free = [c for cell in cells for c in cell if c not in taken]
    policies = {"CPUManagerPolicy": "static", "TopologyManagerPolicy": knob.policy}
    res_reserved = {"cpu": str(knob.reserved)} if knob.reserved else {}
    numares = {"cpu": {"allocatable": _cpuset(free), "capacity": knob.cpus}}
    detail: dict[str, Any] = {}
    for index, cell in enumerate(cells):
        for cpu in cell:
            entry = {"numa": index, "socket": index, "core": cpu}
            detail[str(cpu)] = {k: v for k, v in entry.items() if v}
    return policies, res_reserved, numares, detail, out
