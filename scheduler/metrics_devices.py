"""Volcano's vGPU device gauges for ``/metrics``, read from the rows at scrape time.

Volcano's counterpart: ``pkg/scheduler/api/devices/nvidia/vgpu/metrics.go``, whose gauges the
scheduler's cache sets as pods are booked on and taken off a node's cards. The cards come from
the nodes' ``volcano.sh/node-vgpu-register`` and what each holds from the live pods'
``volcano.sh/vgpu-ids-new`` (what the next session's cache books, ``VgpuDevices.book``), so the
figures are the scheduler's view after the last bind, whichever process serves the scrape.
Names, labels (``devID``, ``NodeName``, ``podName``) and help texts are Volcano's; gpushare has
no gauges in Volcano, and none here.
"""

from __future__ import annotations

from collections.abc import Iterator

from apis.prometheus_text import Family
from core.models import Node, Pod
from scheduler.engine.api.devices.vgpu import ASSIGNED_IDS, NODE_REGISTER, VgpuDevices
from scheduler.node_devices import vgpu_devices

__all__ = ["device_families"]

_GAUGES = (
    ("shared_number", "The number of vgpu tasks sharing this card"),
    ("allocated_memory", "The number of vgpu memory allocated in this card"),
    ("allocated_cores", "The percentage of gpu compute cores allocated in this card"),
    ("memory_limit", "The number of total device memory in this card"),
)
_POD_GAUGES = (
    ("memory_allocation_for_a_certain_pod", "The vgpu device memory allocated for a certain pod"),
    ("core_allocation_for_a_certain_pod", "The vgpu device core allocated for a certain pod"),
)


def _devices() -> Iterator[tuple[VgpuDevices, dict[str, str]]]:
    """Yield each Ready node's vGPU cards with its live pods booked, and pod uid → pod name."""
    rows = Node.objects.filter(ready=True, annotations__has_key=NODE_REGISTER).values_list(
        "pk", "name", "annotations", "allocatable"
    )
    for pk, name, notes, allocatable in rows:
        devices = vgpu_devices(name, notes, allocatable)
        if devices is None:
            continue
        names: dict[str, str] = {}
        pods = Pod.objects.filter(
            node_id=pk, phase__in=("Pending", "Running"), annotations__has_key=ASSIGNED_IDS
        ).values_list("namespace", "name", "annotations")
        for namespace, pod_name, pod_notes in pods:
            uid = f"{namespace}/{pod_name}"
            names[uid] = pod_name
            devices.book(uid, str(pod_notes.get(ASSIGNED_IDS, "")), "")
        yield devices, names


def device_families() -> list[Family]:
    """Return the ``volcano_vgpu_device_*`` families (no samples when no node has vGPUs)."""
    cards = {key: Family(f"volcano_vgpu_device_{key}", "gauge", text) for key, text in _GAUGES}
    per_pod = {
        key: Family(f"volcano_vgpu_device_{key}", "gauge", text) for key, text in _POD_GAUGES
    }
    for devices, names in _devices():
        for card in devices.cards:
            labels = {"devID": card.uuid, "NodeName": devices.node}
            cards["shared_number"].add(labels, card.used_num)
            cards["allocated_memory"].add(labels, card.used_mem)
            cards["allocated_cores"].add(labels, card.used_core)
            cards["memory_limit"].add(labels, card.memory)
            for uid, usage in card.pods.items():
                pod = {**labels, "podName": names.get(uid, uid)}
                per_pod["memory_allocation_for_a_certain_pod"].add(pod, usage.memory)
                per_pod["core_allocation_for_a_certain_pod"].add(pod, usage.cores)
    return [*cards.values(), *per_pod.values()]
