"""Plain words for the device, NUMA and HyperNode refusals in what the scheduler recorded.

``queues.why`` reads pods' ``PodScheduled`` fit-error summaries ("0/5 nodes are unavailable:
3 hami-vgpuDeviceSharing error, 2 Insufficient cpu.") and the PodGroup's gang condition. The
refusals below are the engine's (Volcano's) own words, matched as text: this layer may not
import the scheduler (the house), so each string names where it comes from.

- deviceshare (``scheduler.engine.plugins.deviceshare``): ``hami-vgpuDeviceSharing error`` (no
  vGPU card of a node fits), ``GpuShare no enough gpu memory on node …``, ``GpuNumber no enough
  gpu number on node …`` (gpushare, ``scheduler.engine.api.devices.gpushare``), and the
  resources short on every card: ``Insufficient volcano.sh/vgpu-memory`` and the like.
- numa-aware (``scheduler.engine.plugins.numaaware``): ``container … cannot be assigned by
  numa``, ``task topology policy[…] is different with node[…]``, ``numa info is empty``,
  ``cpu manager policy isn't static``.
- A hard ``networkTopology`` job is placed inside one HyperNode at a time
  (``scheduler.engine.actions.allocate_topology``); when none up to its highest tier has room,
  gang's condition is all the PodGroup carries, so the words come from the PodGroup's spec.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

__all__ = ["hypernode_words", "refusal_words"]

VGPU_REFUSAL = "hami-vgpuDeviceSharing error"
GPUSHARE_MEMORY = "GpuShare no enough gpu memory"
GPUSHARE_NUMBER = "GpuNumber no enough gpu number"
NUMA_UNASSIGNABLE = "cannot be assigned by numa"
NUMA_POLICY_DIFFERS = "task topology policy["
NUMA_EMPTY = "numa info is empty"
NUMA_NOT_STATIC = "cpu manager policy isn't static"
NUMA_POLICY_ANNOTATION = "volcano.sh/numa-topology-policy"
VGPU_MEMORY, VGPU_NUMBER, VGPU_CORES = (
    "volcano.sh/vgpu-memory", "volcano.sh/vgpu-number", "volcano.sh/vgpu-cores",
)  # fmt: skip
GPU_MEMORY, GPU_NUMBER, EXCLUSIVE_GPU = (
    "volcano.sh/gpu-memory", "volcano.sh/gpu-number", "nvidia.com/gpu",
)  # fmt: skip


def _asked(pod: Any, name: str) -> int:
    """Return what ``pod`` requests of ``name`` in whole units (MiB, cards, CPUs)."""
    requests = getattr(pod, "requests", None) or {}
    try:
        return int(requests.get(name, 0) or 0) // 1000
    except (TypeError, ValueError):
        return 0


def _gib(mib: int) -> str:
    return f"{mib / 1024:.1f}".removesuffix(".0")


def _gpu_memory_words(pod: Any, resource: str) -> str:
    memory = _asked(pod, resource)
    cards = max(_asked(pod, VGPU_NUMBER), 1) if resource == VGPU_MEMORY else 1
    if memory and cards > 1:
        return _("no node has %(n)s GPUs with %(gib)s GiB of free memory each") % {
            "n": cards, "gib": _gib(memory // cards)}  # fmt: skip
    if memory:
        return _("no GPU has %(gib)s GiB of free memory") % {"gib": _gib(memory)}
    cores = _asked(pod, VGPU_CORES)
    if cores:
        return _("no GPU has %(p)s%% of its compute cores free") % {"p": cores}
    return _("no GPU has room for its vGPU request (memory, cores or a free slot)")


def _numa_words(pod: Any, messages: Iterable[str]) -> str:
    cpus = _asked(pod, "cpu")
    annotations = getattr(pod, "annotations", None) or {}
    policy = (
        str(annotations.get(NUMA_POLICY_ANNOTATION, "")) if isinstance(annotations, Mapping) else ""
    )
    if any(NUMA_UNASSIGNABLE in m for m in messages):
        if not cpus:  # a pod whose requests are not known here (a what-if's prediction)
            return _("no node has the CPUs it asks free on the NUMA cells its policy allows")
        if policy in ("", "single-numa-node"):
            return ngettext("no node has %(n)s CPU free on one NUMA cell",
                            "no node has %(n)s CPUs free on one NUMA cell", cpus) % {"n": cpus}  # fmt: skip
        return ngettext(
            "no node has %(n)s CPU free on the NUMA cells its %(policy)s policy allows",
            "no node has %(n)s CPUs free on the NUMA cells its %(policy)s policy allows", cpus,
        ) % {"n": cpus, "policy": policy}  # fmt: skip
    if any(NUMA_POLICY_DIFFERS in m or NUMA_EMPTY in m or NUMA_NOT_STATIC in m for m in messages):
        return _("no node runs the NUMA topology policy %(policy)s it asks, with a static CPU "
                 "manager") % {"policy": policy or "?"}  # fmt: skip
    return ""


def refusal_words(messages: Mapping[str, int], pod: Any | None) -> list[tuple[str, str]]:
    """Return ``(kind, words)`` for each device or NUMA refusal in a task's fit errors.

    ``messages``: the task's pending pods' fit-error summaries (with counts); ``pod``: one of
    them, whose requests give the amounts. Kinds: ``devices``, ``numa``. Empty when the fit
    errors name none of them (the caller keeps its general words).
    """
    text = " ".join(messages)
    found: list[tuple[str, str]] = []
    if VGPU_REFUSAL in text or f"Insufficient {VGPU_MEMORY}" in text:
        found.append(("devices", _gpu_memory_words(pod, VGPU_MEMORY)))
    elif f"Insufficient {VGPU_NUMBER}" in text:
        found.append(("devices", _("no node has %(n)s vGPU slots free") % {
            "n": max(_asked(pod, VGPU_NUMBER), 1)}))  # fmt: skip
    if GPUSHARE_MEMORY in text or f"Insufficient {GPU_MEMORY}" in text:
        found.append(("devices", _gpu_memory_words(pod, GPU_MEMORY)))
    if GPUSHARE_NUMBER in text or f"Insufficient {GPU_NUMBER}" in text:
        n = max(_asked(pod, GPU_NUMBER), 1)
        found.append(("devices", ngettext("no node has %(n)s idle GPU", "no node has %(n)s idle "
                                          "GPUs", n) % {"n": n}))  # fmt: skip
    if f"Insufficient {EXCLUSIVE_GPU}" in text:
        n = max(_asked(pod, EXCLUSIVE_GPU), 1)
        found.append(("devices", ngettext("no node has %(n)s free GPU", "no node has %(n)s free "
                                          "GPUs", n) % {"n": n}))  # fmt: skip
    numa = _numa_words(pod, messages)
    if numa:
        found.append(("numa", numa))
    return found


def hypernode_words(group: Any) -> str:
    """Return why a hard-topology PodGroup waits ('' when its networkTopology is not hard).

    The engine places such a job inside one HyperNode of tier ``highestTierAllowed`` (or the
    tier named ``highestTierName``) or below; gang's condition then means none had room for
    ``minMember`` pods together.
    """
    topology = getattr(group, "network_topology", None)
    if not isinstance(topology, Mapping) or topology.get("mode") != "hard":
        return ""
    pods = int(getattr(group, "min_member", 0) or 0)
    tier, name = topology.get("highestTierAllowed"), topology.get("highestTierName")
    if isinstance(tier, int) and not isinstance(tier, bool):
        where = (
            _("no tier-1 HyperNode") if tier <= 1
            else _("no HyperNode of tier %(tier)s or below") % {"tier": tier}
        )  # fmt: skip
    elif name:
        where = _("no HyperNode up to tier “%(name)s”") % {"name": name}
    else:
        where = _("no HyperNode")
    return ngettext(
        "Network topology (hard): %(where)s has room for its %(n)s pod together.",
        "Network topology (hard): %(where)s has room for all %(n)s pods together.", pods,
    ) % {"where": where, "n": pods}  # fmt: skip
