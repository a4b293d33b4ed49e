"""Reading ``topology.volcano.sh/v1alpha1`` HyperNode manifests and ``spec.networkTopology``.

Volcano's counterparts: the HyperNode CRD (``staging/.../topology/v1alpha1/hypernode_types.go``)
with its admission rules (one selector per member; regex and label selectors only for Node
members), and ``scheduling.NetworkTopologySpec`` on PodGroups and Volcano Jobs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from apis.errors import ManifestError
from scheduler.engine.api.hypernode import (
    HARD,
    MEMBER_HYPERNODE,
    MEMBER_NODE,
    SOFT,
    HyperNodeInfo,
    HyperNodeMember,
    NetworkTopology,
)
from scheduler.engine.util.manifests import check_keys, mapping
from scheduler.engine.util.pdb_manifest import read_label_selector

__all__ = ["read_hypernode", "read_network_topology"]

_SELECTORS = ("exactMatch", "regexMatch", "labelMatch")


def _member(raw: object, field: str) -> HyperNodeMember:
    data = mapping(raw, field)
    check_keys(data, frozenset({"type", "selector"}), field)
    kind = data.get("type")
    if kind not in (MEMBER_NODE, MEMBER_HYPERNODE):
        raise ManifestError(f"{field}.type", f"expected Node or HyperNode, got {kind!r}")
    selector = mapping(data.get("selector"), f"{field}.selector")
    check_keys(selector, frozenset(_SELECTORS), f"{field}.selector")
    given = [key for key in _SELECTORS if selector.get(key) is not None]
    if len(given) != 1:
        raise ManifestError(
            f"{field}.selector", "exactly one of exactMatch, regexMatch or labelMatch is required"
        )
    key = given[0]
    where = f"{field}.selector.{key}"
    if key != "exactMatch" and kind != MEMBER_NODE:
        raise ManifestError(where, "only Node members may use regexMatch or labelMatch")
    if key == "exactMatch":
        exact = mapping(selector[key], where)
        check_keys(exact, frozenset({"name"}), where)
        name = exact.get("name")
        if not isinstance(name, str) or not name:
            raise ManifestError(f"{where}.name", "required")
        return HyperNodeMember(type=str(kind), exact_match=name)
    if key == "regexMatch":
        regex = mapping(selector[key], where)
        check_keys(regex, frozenset({"pattern"}), where)
        pattern = regex.get("pattern")
        if not isinstance(pattern, str) or not pattern:
            raise ManifestError(f"{where}.pattern", "required")
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ManifestError(f"{where}.pattern", f"invalid regular expression: {exc}") from exc
        return HyperNodeMember(type=str(kind), regex_match=pattern)
    return HyperNodeMember(type=str(kind), label_match=read_label_selector(selector[key], where))


def read_hypernode(obj: Mapping[str, Any], meta: Mapping[str, Any], path: str) -> HyperNodeInfo:
    """Return the facts of a ``HyperNode`` manifest (cluster-scoped: its name alone)."""
    check_keys(obj, frozenset({"apiVersion", "kind", "metadata", "spec", "status"}), path)
    spec = mapping(obj.get("spec"), f"{path}.spec")
    check_keys(spec, frozenset({"tier", "tierName", "members"}), f"{path}.spec")
    tier = spec.get("tier")
    if isinstance(tier, bool) or not isinstance(tier, int) or tier < 0:
        raise ManifestError(f"{path}.spec.tier", f"expected a non-negative integer, got {tier!r}")
    tier_name = spec.get("tierName") or ""
    if not isinstance(tier_name, str):
        raise ManifestError(f"{path}.spec.tierName", f"expected a string, got {tier_name!r}")
    raw_members = spec.get("members") or []
    if not isinstance(raw_members, list):
        raise ManifestError(f"{path}.spec.members", "expected a list")
    members = tuple(_member(m, f"{path}.spec.members[{i}]") for i, m in enumerate(raw_members))
    return HyperNodeInfo(name=str(meta["name"]), tier=tier, tier_name=tier_name, members=members)


def read_network_topology(raw: object, path: str) -> NetworkTopology | None:
    """Return a ``spec.networkTopology`` (None when absent); ``path`` names that field."""
    if raw is None:
        return None
    data = mapping(raw, path)
    check_keys(data, frozenset({"mode", "highestTierAllowed", "highestTierName"}), path)
    mode = data.get("mode") or HARD
    if mode not in (HARD, SOFT):
        raise ManifestError(f"{path}.mode", f"expected hard or soft, got {mode!r}")
    tier = data.get("highestTierAllowed")
    if tier is not None and (isinstance(tier, bool) or not isinstance(tier, int) or tier < 0):
        raise ManifestError(
            f"{path}.highestTierAllowed", f"expected a non-negative integer, got {tier!r}"
        )
    name = data.get("highestTierName") or ""
    if not isinstance(name, str):
        raise ManifestError(f"{path}.highestTierName", f"expected a string, got {name!r}")
    if tier is not None and name:
        raise ManifestError(path, "highestTierAllowed and highestTierName are mutually exclusive")
    return NetworkTopology(mode=str(mode), highest_tier_allowed=tier, highest_tier_name=name)
