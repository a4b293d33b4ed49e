"""The simulated device plugins' admission: a pod whose assignment names a card its node lacks
fails to start, as on a real node.

The kubelet asks the device plugin to ``Allocate`` the devices of a pod before starting it;
Volcano's vGPU plugin (HAMi) looks up the cards the scheduler wrote on the pod
(``volcano.sh/vgpu-ids-new``) and the gpushare plugin the card indexes (``volcano.sh/gpu-index``).
When a card is not the node's, ``Allocate`` returns an error and the kubelet fails the pod with
reason ``UnexpectedAdmissionError``, never starting its containers. The simulated kubelet does
the same (``runtime.tick``, before it acknowledges new binds), for the pods just bound: a pod
bound by hand, or scheduled on a stale view of a node whose cards changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db.models import Q, QuerySet

from core.models import Pod

__all__ = ["GPU_INDEX", "REASON", "VGPU_IDS", "refused"]

VGPU_IDS = "volcano.sh/vgpu-ids-new"
GPU_INDEX = "volcano.sh/gpu-index"
VGPU_REGISTER = "volcano.sh/node-vgpu-register"
GPU_NUMBER = "volcano.sh/gpu-number"
REASON = "UnexpectedAdmissionError"


def _node_cards(annotations: Mapping[str, Any]) -> set[str]:
    text = str(annotations.get(VGPU_REGISTER, ""))
    return {entry.split(",")[0] for entry in text.split(":") if "," in entry}


def _missing(pod_notes: Mapping[str, Any], node_notes: Mapping[str, Any],
             capacity: Mapping[str, Any]) -> str:  # fmt: skip
    """Return the first card the pod names that its node lacks ('' when it has them all)."""
    ids = str(pod_notes.get(VGPU_IDS, ""))
    if ids:
        cards = _node_cards(node_notes)
        for container in ids.split(";"):
            for entry in container.split(":"):
                uuid = entry.split(",")[0].strip()
                if uuid and uuid not in cards:
                    return uuid
    index = str(pod_notes.get(GPU_INDEX, ""))
    if index:
        count = int(capacity.get(GPU_NUMBER, 0)) // 1000
        for part in index.split(","):
            part = part.strip()
            if part and (not part.isdigit() or int(part) >= count):
                return part
    return ""


def refused(new_binds: QuerySet[Pod]) -> dict[int, str]:
    """Return pod pk → message for the pods among ``new_binds`` whose devices the node lacks."""
    out: dict[int, str] = {}
    named = new_binds.filter(Q(annotations__has_key=VGPU_IDS) | Q(annotations__has_key=GPU_INDEX))
    for pk, notes, node, node_notes, capacity in named.values_list(
        "pk", "annotations", "node__name", "node__annotations", "node__capacity"
    ):
        card = _missing(notes or {}, node_notes or {}, capacity or {})
        if card:
            out[pk] = (
                f"Allocate failed due to device {card} not found on node {node}, "
                "which is unexpected"
            )
    return out
