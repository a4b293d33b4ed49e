"""Admission of a ``networkTopology`` block: the CRD's schema rules and the webhooks' one rule.

The CRD (``scheduling.volcano.sh_podgroups.yaml``, ``batch.volcano.sh_jobs.yaml``) allows
``mode`` hard or soft, ``highestTierAllowed`` >= 0 and a ``highestTierName`` of at most 253
characters; kube-apiserver checks that on every write. Volcano's webhooks add that the two
tier fields may not both be set (the Job webhook on create and update, the PodGroup webhook
on create only), in their words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from apis.errors import ManifestError
from kube.admission_causes import Causes, CauseType
from queues.manifests.network_topology import MODES, read_network_topology
from queues.manifests.reread import reread

__all__ = ["BOTH_TIERS", "MAX_NAME", "validate_network_topology", "validate_tier_exclusive"]

MAX_NAME = 253
BOTH_TIERS = (
    "must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously"
)


def validate_network_topology(topology: Any, at: str, causes: Causes) -> dict[str, Any] | None:
    """Record what the CRD's schema refuses in ``topology`` (at wire path ``at``).

    Return the block as read (the CRD's default mode filled), or None when it is absent or
    not even shaped like one (that is recorded too).
    """
    if topology is None:
        return None
    try:
        block = reread(read_network_topology, topology, at)
    except ManifestError as exc:
        causes.invalid(exc.field, exc.message)
        return None
    if block is None:
        return None
    mode = block["mode"]
    if mode not in MODES:
        causes.not_supported(f"{at}.mode", mode, MODES)
    tier = block.get("highestTierAllowed")
    if tier is not None and tier < 0:
        causes.invalid(f"{at}.highestTierAllowed", f"{tier}: must be greater than or equal to 0")
    if len(block.get("highestTierName", "")) > MAX_NAME:
        causes.add(
            f"{at}.highestTierName",
            CauseType.TOO_LONG,
            f"Too long: may not be more than {MAX_NAME} bytes",
        )
    return block


def validate_tier_exclusive(
    topology: Mapping[str, Any] | None, at: str, causes: Causes, message: str = BOTH_TIERS
) -> bool:
    """Record Volcano's refusal of a ``topology`` naming both a tier and a tier name.

    Return whether it was refused (the PodGroup webhook reports only the first subGroupPolicy).
    """
    if topology is None:
        return False
    if topology.get("highestTierAllowed") is not None and topology.get("highestTierName"):
        causes.forbidden(at, message)
        return True
    return False
