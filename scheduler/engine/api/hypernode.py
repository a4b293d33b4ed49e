"""HyperNodes: the network topology of the cluster, and the tree one session derives from it.

Volcano's counterparts: ``topology.volcano.sh/v1alpha1`` HyperNode (``HyperNodeInfo`` here holds
only the facts the scheduler reads), ``pkg/scheduler/api/hyper_node_info.go`` (members, parents,
ancestors, LCA) and the session's ``addClusterTopHyperNode`` / ``parseHyperNodesTiers``
(``HyperNodeTree`` here).

A HyperNode groups nodes (its ``Node`` members, matched by exact name, an unanchored RE2-style
regular expression or a label selector) and other HyperNodes (``HyperNode`` members, by exact
name only). Every session adds a virtual top HyperNode above every parentless one, one tier above
the highest, holding every node: the search root of topology-aware allocation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from scheduler.engine.api.pdb_info import PdbSelector

__all__ = [
    "HARD",
    "SOFT",
    "TOP_HYPERNODE",
    "HyperNodeInfo",
    "HyperNodeMember",
    "HyperNodeTree",
    "NetworkTopology",
]

IntArray = npt.NDArray[np.int64]

# Volcano's ``framework.ClusterTopHyperNode``: a name no real HyperNode can take.
TOP_HYPERNODE = "<cluster-top-hypernode>"
HARD = "hard"
SOFT = "soft"
MEMBER_NODE = "Node"
MEMBER_HYPERNODE = "HyperNode"


@dataclass(frozen=True)
class NetworkTopology:
    """A PodGroup's (or Job's) ``spec.networkTopology``.

    ``highest_tier_allowed`` None: not given (``highest_tier_name`` may name the tier instead).
    """

    mode: str
    highest_tier_allowed: int | None
    highest_tier_name: str


@dataclass(frozen=True, slots=True)
class HyperNodeMember:
    """One ``spec.members[]`` entry: its type and exactly one selector."""

    type: str  # "Node" or "HyperNode"
    exact_match: str | None = None
    regex_match: str | None = None
    label_match: PdbSelector | None = None

    def matches_node(self, name: str, labels: Mapping[str, str]) -> bool:
        """Return True when this Node member selects the node ``name`` with ``labels``.

        An exact name selects that node; a pattern matches anywhere in the name unless it
        anchors (Go's ``regexp.MatchString``); an empty label selector selects nothing.
        """
        if self.type != MEMBER_NODE:
            return False
        if self.exact_match is not None:
            return self.exact_match == name
        if self.regex_match is not None:
            return _compiled(self.regex_match).search(name) is not None
        if self.label_match is not None:
            return not self.label_match.is_empty() and self.label_match.matches(labels)
        return False


_PATTERNS: dict[str, re.Pattern[str]] = {}


def _compiled(pattern: str) -> re.Pattern[str]:
    found = _PATTERNS.get(pattern)
    if found is None:
        found = _PATTERNS[pattern] = re.compile(pattern)
    return found


@dataclass(frozen=True)
class HyperNodeInfo:
    """One HyperNode as stored: cluster-scoped name, tier (lower = closer), tier name, members."""

    name: str
    tier: int
    tier_name: str = ""
    members: tuple[HyperNodeMember, ...] = ()


@dataclass(slots=True, eq=False)
class HyperNodeTree:
    """The session's HyperNodes with what Volcano derives each session.

    ``rows[h]``: the node rows (``NodeInfo.index``) of the real nodes under ``h`` (its Node
    members and its children's, only nodes that exist), sorted. ``leaf_of_row[r]``: the HyperNode
    of the lowest tier that holds row ``r`` ("" when none: Volcano's ``FindHyperNodeForNode``).
    """

    tier: dict[str, int]
    parent: dict[str, str]
    children: dict[str, list[str]]
    rows: dict[str, IntArray]
    tier_names: dict[str, int]
    tiers: list[int]  # every tier in use, ascending, the top tier last
    leaf_of_row: list[str]
    containing: list[list[str]]  # row -> every HyperNode holding it (top included)
    _ancestors: dict[str, list[str]] = field(default_factory=dict)
    _lca: dict[tuple[str, str], str] = field(default_factory=dict)

    @property
    def top_tier(self) -> int:
        """Return the virtual top HyperNode's tier."""
        return self.tier[TOP_HYPERNODE]

    @property
    def min_tier(self) -> int:
        """Return the lowest tier in use (the top tier when there is no real HyperNode)."""
        return self.tiers[0]

    def has_real(self) -> bool:
        """Return True when the cluster has at least one HyperNode besides the virtual top."""
        return len(self.tier) > 1

    def ancestors(self, name: str) -> list[str]:
        """Return ``name`` and its ancestors, nearest first (the top HyperNode last)."""
        found = self._ancestors.get(name)
        if found is None:
            found = [name]
            current = self.parent.get(name, "")
            while current and current not in found:
                found.append(current)
                current = self.parent.get(current, "")
            self._ancestors[name] = found
        return found

    def lca(self, a: str, b: str) -> str:
        """Return the lowest common ancestor of ``a`` and ``b`` ("" counts as absent)."""
        if not a:
            return b
        if not b:
            return a
        key = (a, b)
        found = self._lca.get(key)
        if found is None:
            mine = set(self.ancestors(a))
            found = next((x for x in self.ancestors(b) if x in mine), "")
            self._lca[key] = found
        return found

    def lowest_holding(self, rows: Iterable[int]) -> str:
        """Return the lowest-tier HyperNode holding every row of ``rows`` ("" for no rows)."""
        candidates: set[str] | None = None
        for row in rows:
            holding = set(self.containing[row])
            candidates = holding if candidates is None else candidates & holding
            if not candidates:
                return ""
        if not candidates:
            return ""
        return min(candidates, key=lambda h: (self.tier[h], h))

    @classmethod
    def build(
        cls,
        hypernodes: Iterable[HyperNodeInfo],
        node_names: Sequence[str],
        node_labels: Sequence[Mapping[str, str]],
    ) -> HyperNodeTree:
        """Return the tree over the nodes (``node_names[i]`` is row i) with the virtual top."""
        infos = sorted(hypernodes, key=lambda h: h.name)
        by_name = {h.name: h for h in infos}
        # 1. Parents: a HyperNode member names a child (one parent each: the first claim wins).
        parent: dict[str, str] = {}
        children: dict[str, list[str]] = {h.name: [] for h in infos}
        for hn in infos:
            for member in hn.members:
                child = member.exact_match
                if member.type != MEMBER_HYPERNODE or not child or child not in by_name:
                    continue
                if child in parent or child == hn.name:
                    continue
                parent[child] = hn.name
                children[hn.name].append(child)
        # 2. Direct Node members, then real nodes bottom-up through the children.
        row_of = {name: i for i, name in enumerate(node_names)}
        direct: dict[str, set[int]] = {}
        for hn in infos:
            found: set[int] = set()
            for member in hn.members:
                if member.type != MEMBER_NODE:
                    continue
                if member.exact_match is not None:
                    row = row_of.get(member.exact_match)
                    if row is not None:
                        found.add(row)
                    continue
                for i, name in enumerate(node_names):
                    if member.matches_node(name, node_labels[i]):
                        found.add(i)
            direct[hn.name] = found
        real: dict[str, set[int]] = {}

        def collect(name: str, seen: frozenset[str]) -> set[int]:
            if name in real:
                return real[name]
            out = set(direct[name])
            for child in children[name]:
                if child not in seen:  # a cycle adds nothing
                    out |= collect(child, seen | {child})
            real[name] = out
            return out

        for hn in infos:
            collect(hn.name, frozenset({hn.name}))
        # 3. The virtual top HyperNode above every parentless one.
        tier = {h.name: h.tier for h in infos}
        top_tier = max(tier.values(), default=0) + 1
        tier[TOP_HYPERNODE] = top_tier
        children[TOP_HYPERNODE] = [h.name for h in infos if h.name not in parent]
        for name in children[TOP_HYPERNODE]:
            parent[name] = TOP_HYPERNODE
        real[TOP_HYPERNODE] = set(range(len(node_names)))
        rows = {name: np.array(sorted(found), dtype=np.int64) for name, found in real.items()}
        tiers = sorted(set(tier.values()))
        containing: list[list[str]] = [[] for _ in node_names]
        for name in sorted(real, key=lambda h: (tier[h], h)):
            for row in real[name]:
                containing[row].append(name)
        lowest = tiers[0]
        leaf_of_row = [next((h for h in held if tier[h] == lowest), "") for held in containing]
        tier_names: dict[str, int] = {}
        for hn in infos:
            if hn.tier_name:
                tier_names.setdefault(hn.tier_name, hn.tier)
        return cls(
            tier=tier,
            parent=parent,
            children=children,
            rows=rows,
            tier_names=tier_names,
            tiers=tiers,
            leaf_of_row=leaf_of_row,
            containing=containing,
        )
