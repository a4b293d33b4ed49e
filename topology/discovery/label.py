"""The ``label`` discovery source: HyperNodes built from node labels, as Volcano's is.

Its configuration names, per network topology type, the node labels from the top tier down
to ``kubernetes.io/hostname`` (which stands for the node itself and is not a tier)::

    networkTopologyTypes:
      topologyA3:
        - nodeLabel: volcano.sh/hypercluster   # tier 2
        - nodeLabel: volcano.sh/hypernode      # tier 1
        - nodeLabel: kubernetes.io/hostname

Every distinct value of a tier's label makes one HyperNode of that tier (``tierName`` = the
label's key): tier 1 has the labelled nodes as members, each higher tier the HyperNodes of the
tier below whose nodes carry its value. A node's chain stops at the first label it lacks. A
type name longer than 20 characters, or one naming a label twice, is skipped.

A discovered HyperNode carries ``volcano.sh/network-topology-source: label`` and the tier's
label (``volcano.sh/hypernode: s0``); it is named
``hypernode-<type>-tier<N>-<five random characters>`` and keeps its name while that label
value lives on (an existing one with the label, the source and the name's prefix is reused).
Reconciling creates what is new, rewrites the spec of what changed and deletes the discovered
HyperNodes no node stands for any more; HyperNodes without the source label (hand-written)
are never touched.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db.models import F

from kube.finalizers import delete_or_finalize
from kube.models import Generation
from kube.store import generate_name
from topology.discovery.config import DiscoveryConfig
from topology.members import NodeLabels
from topology.models import HyperNode, MemberType

__all__ = [
    "SOURCE",
    "SOURCE_LABEL",
    "Discovered",
    "discover",
    "reconcile_discovered",
    "topology_types",
]

logger = logging.getLogger(__name__)

SOURCE = "label"
SOURCE_LABEL = "volcano.sh/network-topology-source"
MAX_TYPE_NAME = 20
HOSTNAME = "kubernetes.io/hostname"


@dataclass
class Discovered:
    """One HyperNode the node labels call for."""

    name: str
    tier: int
    tier_name: str
    labels: dict[str, str]
    members: set[str] = field(default_factory=set)

    def member_specs(self) -> list[dict[str, Any]]:
        """Return the spec's members: tier 1 names nodes, higher tiers HyperNodes (sorted)."""
        member_type = MemberType.NODE if self.tier == 1 else MemberType.HYPER_NODE
        return [
            {"type": str(member_type), "selector": {"exactMatch": {"name": name}}}
            for name in sorted(self.members)
        ]


def topology_types(config: DiscoveryConfig) -> dict[str, list[str]]:
    """Return each topology type's tier label keys, tier 1 first (Volcano's parseCfg)."""
    found: dict[str, list[str]] = {}
    types = config.config.get("networkTopologyTypes")
    if not isinstance(types, Mapping):
        return found
    for name, labels in sorted(types.items()):
        keys = [
            str(item.get("nodeLabel", "")) for item in labels or [] if isinstance(item, Mapping)
        ]
        if len(str(name)) > MAX_TYPE_NAME:
            logger.warning("topology type %r: longer than %d characters", name, MAX_TYPE_NAME)
            continue
        if len(set(keys)) != len(keys):
            logger.warning("topology type %r: there are duplicate labels", name)
            continue
        # The last label stands for the node itself (kubernetes.io/hostname): not a tier.
        found[str(name)] = list(reversed(keys[:-1]))
    return found


def _clean(name: str) -> str:
    """Volcano's cleanString: letters lowered, digits, '.' and '-' kept, the rest '-'."""
    return "".join(
        c.lower() if c.isalpha() else c if c.isdigit() or c in ".-" else "-" for c in name
    )


class _Namer:
    """Volcano's buildHyperNodeName: reuse the existing name of a label value, else a new one."""

    def __init__(self, existing: list[HyperNode], taken: set[str]) -> None:
        self.existing = sorted(existing, key=lambda hn: hn.name)
        self.taken = taken

    def name(self, type_name: str, key: str, value: str, tier: int) -> str:
        prefix = f"hypernode-{_clean(type_name)}-tier{tier}"
        for hyper_node in self.existing:
            if hyper_node.labels.get(key) == value and hyper_node.name.startswith(prefix):
                self.taken.add(hyper_node.name)
                return hyper_node.name
        while True:
            name = generate_name(f"{prefix}-")
            if name not in self.taken:
                self.taken.add(name)
                return name


def discover(
    types: Mapping[str, list[str]],
    nodes: Iterable[NodeLabels],
    existing: list[HyperNode],
    taken: set[str],
) -> dict[str, Discovered]:
    """Return the HyperNodes the nodes' labels call for, by name.

    ``existing`` are the HyperNodes discovered before (their names are reused), ``taken``
    every HyperNode name in use (a new name avoids them).
    """
    namer = _Namer(existing, set(taken))
    found: dict[str, Discovered] = {}
    by_label: dict[tuple[str, str], str] = {}
    for node in sorted(nodes, key=lambda n: n.name):
        for type_name, keys in types.items():
            member = node.name
            for index, key in enumerate(keys):
                value = node.labels.get(key)
                if value is None:
                    break
                tier = index + 1
                name = by_label.get((key, value)) or namer.name(type_name, key, value, tier)
                by_label[(key, value)] = name
                hyper_node = found.setdefault(name, Discovered(name, tier, key, {key: value}))
                hyper_node.members.add(member)
                member = name
    return found


def _labels(discovered: Discovered) -> dict[str, str]:
    return {SOURCE_LABEL: SOURCE, **discovered.labels}


def _bump_generation(hyper_node: HyperNode) -> None:
    """A new spec is a new ``metadata.generation``, as kube-apiserver counts it."""
    if hyper_node.uid is None:
        return
    if not Generation.objects.filter(uid=hyper_node.uid).update(generation=F("generation") + 1):
        Generation.objects.create(uid=hyper_node.uid, generation=2)


def reconcile_discovered(found: Mapping[str, Discovered], existing: list[HyperNode]) -> int:
    """Create, update and delete the label-discovered HyperNodes; return how many changed."""
    changed = 0
    current = {hyper_node.name: hyper_node for hyper_node in existing}
    for name, discovered in sorted(found.items()):
        members = discovered.member_specs()
        hyper_node = current.pop(name, None)
        if hyper_node is None:
            HyperNode(
                name=name,
                labels=_labels(discovered),
                tier=discovered.tier,
                tier_name=discovered.tier_name,
                members=members,
            ).save()
            logger.info("created HyperNode %s (source %s)", name, SOURCE)
            changed += 1
            continue
        labels = {**hyper_node.labels, **_labels(discovered)}
        wanted = (discovered.tier, discovered.tier_name, members, labels)
        if (hyper_node.tier, hyper_node.tier_name, hyper_node.members, hyper_node.labels) == wanted:
            continue
        spec_changed = (hyper_node.tier, hyper_node.tier_name, hyper_node.members) != wanted[:3]
        hyper_node.tier, hyper_node.tier_name, hyper_node.members, hyper_node.labels = wanted
        hyper_node.save()
        if spec_changed:
            _bump_generation(hyper_node)
        changed += 1
    for name, hyper_node in sorted(current.items()):
        if hyper_node.deletion_timestamp is None:
            delete_or_finalize(hyper_node)
            logger.info("deleted HyperNode %s (source %s): no node stands for it", name, SOURCE)
            changed += 1
    return changed
