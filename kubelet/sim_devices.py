"""Simulated GPUs and NUMA cells: the Node knobs ``volcano.sh/sim-gpus`` and ``volcano.sh/sim-numa``.

A simulated node has no hardware, so a Node says what it would have, beside the other simulation
knobs (``volcano.sh/sim-usage`` on pods, ``kubelet.sim_usage``)::

    metadata:
      annotations:
        # four 16 GiB cards shared by HAMi-core (Volcano's vGPU device plugin), 10 pods a card
        volcano.sh/sim-gpus: "count=4,memory=16384,type=NVIDIA-Tesla-T4,mode=vgpu,slots=10"
        # two NUMA cells sharing the node's CPUs, kubelet's static CPU manager
        volcano.sh/sim-numa: "cells=2,policy=single-numa-node"

``volcano.sh/sim-gpus`` (comma-separated ``key=value``; only ``count`` is required):

- ``count``: cards (1-64).
- ``memory``: MiB per card (default 16384).
- ``type``: the card model as the device plugin reports it (default ``NVIDIA-Tesla-T4``; the
  vGPU scheduler only takes cards whose type contains ``NVIDIA``).
- ``mode``: which device plugin registers them (default ``vgpu``):
  ``vgpu`` — Volcano's vGPU device plugin (HAMi-core): node annotation
  ``volcano.sh/node-vgpu-register`` (``<uuid>,<slots>,<MiB>,<type>,<health>,hami-core:`` per
  card) and ``volcano.sh/vgpu-number`` (count x slots), ``volcano.sh/vgpu-memory`` (MiB in all)
  and ``volcano.sh/vgpu-cores`` (100 a card) in capacity and allocatable;
  ``gpushare`` — the gpushare device plugin: ``volcano.sh/gpu-memory`` (MiB in all) and
  ``volcano.sh/gpu-number`` in capacity and allocatable;
  ``exclusive`` — NVIDIA's device plugin: ``nvidia.com/gpu`` (whole cards).
- ``slots``: pods that may share one card (vgpu only; default 10, HAMi's device-split-count).

Card UUIDs are derived from the node's name (``GPU-<uuid5>``), so they stay the same across
restarts and re-creations of the node, as a real card's do.

``volcano.sh/sim-numa`` (comma-separated ``key=value``, every key optional):

- ``cells``: NUMA nodes (default 2); the node's CPUs (``cpus``, default its cpu capacity in
  whole cores) are split evenly, CPU ids ``0..n-1`` in cell order, one socket per cell.
- ``policy``: the kubelet's TopologyManagerPolicy (``none``, ``best-effort``, ``restricted``,
  ``single-numa-node``; default ``single-numa-node``). The CPU manager is ``static``.
- ``reserved``: CPUs kept for the system (kubelet's ``--reserved-cpus``: the lowest ids;
  default 0), published as ``spec.resReserved.cpu``.

The simulated resource exporter (``kubelet.exporter``) turns these into the node's registration
and its ``nodeinfo.volcano.sh/v1alpha1`` Numatopology. A knob that does not parse is ignored
(the node has no such devices), as a device plugin that fails to start registers nothing; the
exporter logs why. Volcano itself has no such knobs: real nodes have hardware.

Pure Python: the exporter and the tests read it.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "DEVICE_RESOURCES",
    "GPU_MODES",
    "NUMA_POLICIES",
    "SIM_GPUS",
    "SIM_NUMA",
    "VGPU_REGISTER",
    "GpuKnob",
    "KnobError",
    "NumaKnob",
    "card_uuid",
    "device_resources",
    "parse_gpus",
    "parse_numa",
    "registered",
    "vgpu_register",
]

SIM_GPUS = "volcano.sh/sim-gpus"
SIM_NUMA = "volcano.sh/sim-numa"
GPU_MODES = ("vgpu", "gpushare", "exclusive")
NUMA_POLICIES = ("none", "best-effort", "restricted", "single-numa-node")
# Resource names each device plugin registers (and the exporter owns on a knobbed node).
VGPU_RESOURCES = ("volcano.sh/vgpu-number", "volcano.sh/vgpu-memory", "volcano.sh/vgpu-cores")
GPUSHARE_RESOURCES = ("volcano.sh/gpu-memory", "volcano.sh/gpu-number")
EXCLUSIVE_RESOURCES = ("nvidia.com/gpu",)
DEVICE_RESOURCES = VGPU_RESOURCES + GPUSHARE_RESOURCES + EXCLUSIVE_RESOURCES
VGPU_REGISTER = "volcano.sh/node-vgpu-register"
_UUIDS = uuid.UUID("6f1c3c2e-8a4b-4b7e-9d51-7d0b5c3e2a10")  # the namespace of card UUIDs


class KnobError(ValueError):
    """A knob that does not parse: ``knob`` names the annotation, the message the bad part."""

    def __init__(self, knob: str, message: str) -> None:
        super().__init__(f"{knob}: {message}")
        self.knob = knob


@dataclass(slots=True, frozen=True)
class GpuKnob:
    """The cards a simulated node declares."""

    count: int
    memory: int = 16384
    type: str = "NVIDIA-Tesla-T4"
    mode: str = "vgpu"
    slots: int = 10


@dataclass(slots=True, frozen=True)
class NumaKnob:
    """The NUMA layout a simulated node declares (``cpus`` 0: the node's cpu capacity)."""

    cells: int = 2
    cpus: int = 0
    policy: str = "single-numa-node"
    reserved: int = 0


def _pairs(knob: str, text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not value:
            raise KnobError(knob, f"expected key=value, got {part.strip()!r}")
        if key in out:
            raise KnobError(knob, f"{key} given twice")
        out[key] = value
    return out


def _int(knob: str, values: dict[str, str], key: str, default: int | None, low: int,
         high: int) -> int:  # fmt: skip
    text = values.pop(key, None)
    if text is None:
        if default is None:
            raise KnobError(knob, f"{key} is required")
        return default
    try:
        number = int(text)
    except ValueError as exc:
        raise KnobError(knob, f"{key} must be an integer, got {text!r}") from exc
    if not low <= number <= high:
        raise KnobError(knob, f"{key} must be between {low} and {high}, got {number}")
    return number


def _no_more(knob: str, values: dict[str, str]) -> None:
    if values:
        raise KnobError(knob, f"unknown key(s) {', '.join(sorted(values))}")


def parse_gpus(text: str) -> GpuKnob:
    """Return the cards ``volcano.sh/sim-gpus`` declares; ``KnobError`` naming the bad part."""
    values = _pairs(SIM_GPUS, text)
    count = _int(SIM_GPUS, values, "count", None, 1, 64)
    memory = _int(SIM_GPUS, values, "memory", 16384, 1, 1 << 24)
    slots = _int(SIM_GPUS, values, "slots", 10, 1, 1000)
    card_type = values.pop("type", "NVIDIA-Tesla-T4")
    if any(c in card_type for c in ",:;"):
        raise KnobError(SIM_GPUS, f"type may not contain ',', ':' or ';', got {card_type!r}")
    mode = values.pop("mode", "vgpu")
    if mode not in GPU_MODES:
        raise KnobError(SIM_GPUS, f"mode must be one of {', '.join(GPU_MODES)}, got {mode!r}")
    _no_more(SIM_GPUS, values)
    return GpuKnob(count=count, memory=memory, type=card_type, mode=mode, slots=slots)


def parse_numa(text: str, node_cpus: int) -> NumaKnob:
    """Return the NUMA layout ``volcano.sh/sim-numa`` declares on a node of ``node_cpus`` cores."""
    values = _pairs(SIM_NUMA, text)
    cells = _int(SIM_NUMA, values, "cells", 2, 1, 64)
    cpus = _int(SIM_NUMA, values, "cpus", node_cpus, 1, 4096)
    reserved = _int(SIM_NUMA, values, "reserved", 0, 0, 4096)
    policy = values.pop("policy", "single-numa-node")
    if policy not in NUMA_POLICIES:
        raise KnobError(
            SIM_NUMA, f"policy must be one of {', '.join(NUMA_POLICIES)}, got {policy!r}"
        )
    _no_more(SIM_NUMA, values)
    if cpus % cells:
        raise KnobError(SIM_NUMA, f"{cpus} CPUs do not split evenly into {cells} cells")
    if reserved >= cpus:
        raise KnobError(SIM_NUMA, f"reserved must be below the {cpus} CPUs")
    return NumaKnob(cells=cells, cpus=cpus, policy=policy, reserved=reserved)


def card_uuid(node: str, index: int) -> str:
    """Return the UUID of card ``index`` of ``node``: stable, and unique across nodes."""
    return f"GPU-{uuid.uuid5(_UUIDS, f'{node}/{index}')}"


def vgpu_register(node: str, knob: GpuKnob) -> str:
    """Return ``volcano.sh/node-vgpu-register`` as Volcano's vGPU device plugin writes it."""
    return "".join(
        f"{card_uuid(node, i)},{knob.slots},{knob.memory},{knob.type},true,hami-core:"
        for i in range(knob.count)
    )


def device_resources(knob: GpuKnob) -> dict[str, int]:
    """Return the extended resources the knob's device plugin registers, in milli-units."""
    if knob.mode == "vgpu":
        return {
            "volcano.sh/vgpu-number": knob.count * knob.slots * 1000,
            "volcano.sh/vgpu-memory": knob.count * knob.memory * 1000,
            "volcano.sh/vgpu-cores": knob.count * 100 * 1000,
        }
    if knob.mode == "gpushare":
        return {
            "volcano.sh/gpu-memory": knob.count * knob.memory * 1000,
            "volcano.sh/gpu-number": knob.count * 1000,
        }
    return {"nvidia.com/gpu": knob.count * 1000}


def registered(node: str, annotations: Mapping[str, str]) -> tuple[dict[str, str], dict[str, int]]:
    """Return (annotations, resources) the device plugin keeps on ``node`` (both empty: none).

    Raises ``KnobError`` when ``volcano.sh/sim-gpus`` does not parse.
    """
    text = annotations.get(SIM_GPUS)
    if not text:
        return {}, {}
    knob = parse_gpus(text)
    notes = {VGPU_REGISTER: vgpu_register(node, knob)} if knob.mode == "vgpu" else {}
    return notes, device_resources(knob)
