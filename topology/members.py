"""Which existing nodes a HyperNode covers: its Node members, then its children's nodes.

As Volcano resolves members (``pkg/util/hypernode.GetMembers``, the scheduler's
``HyperNodesInfo``): ``exactMatch`` names one node, ``regexMatch`` takes every node whose name
the Go pattern matches anywhere, ``labelMatch`` every node its label selector matches (an
empty selector matches none). A HyperNode member names a child by ``exactMatch``; a HyperNode
covers the nodes of its children too. Only nodes that exist count; a cycle of HyperNodes
(which Volcano refuses to build) is cut where it closes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kube.selectors import Requirement
from topology.go_regexp import compiled
from topology.models import MemberType

__all__ = ["NodeLabels", "children", "covered_nodes", "selected_nodes"]

_OPERATORS = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!exists"}


@dataclass(frozen=True)
class NodeLabels:
    """What member selection reads of a node: its name and labels."""

    name: str
    labels: Mapping[str, str]


def _requirements(selector: Mapping[str, Any]) -> list[Requirement] | None:
    """Return the selector's requirements; None when it selects nothing (empty or invalid)."""
    found = [
        Requirement(k, "in", (str(v),)) for k, v in (selector.get("matchLabels") or {}).items()
    ]
    for expression in selector.get("matchExpressions") or []:
        operator = _OPERATORS.get(str(expression.get("operator")))
        if operator is None:
            return None
        values = tuple(str(value) for value in expression.get("values") or ())
        found.append(Requirement(str(expression.get("key", "")), operator, values))
    return found or None


def selected_nodes(selector: Mapping[str, Any], nodes: Iterable[NodeLabels]) -> set[str]:
    """Return the names of the ``nodes`` a Node member's ``selector`` selects."""
    nodes = list(nodes)
    if "exactMatch" in selector:
        name = (selector.get("exactMatch") or {}).get("name")
        return {node.name for node in nodes if node.name == name}
    if "regexMatch" in selector:
        pattern = compiled(str((selector.get("regexMatch") or {}).get("pattern", "")))
        if pattern is None:
            return set()
        return {node.name for node in nodes if pattern.search(node.name)}
    if "labelMatch" in selector:
        requirements = _requirements(selector.get("labelMatch") or {})
        if requirements is None:
            return set()
        return {
            node.name for node in nodes if all(r.test_labels(node.labels) for r in requirements)
        }
    return set()


def children(members: Iterable[Mapping[str, Any]]) -> list[str]:
    """Return the names of the child HyperNodes ``members`` link (exactMatch only)."""
    found = []
    for member in members:
        if member.get("type") != MemberType.HYPER_NODE:
            continue
        exact = (member.get("selector") or {}).get("exactMatch")
        if isinstance(exact, Mapping) and exact.get("name"):
            found.append(str(exact["name"]))
    return found


def covered_nodes(
    members_by_name: Mapping[str, list[Mapping[str, Any]]], nodes: Iterable[NodeLabels]
) -> dict[str, set[str]]:
    """Return, for each HyperNode (name → its members), the existing nodes it covers."""
    nodes = list(nodes)
    direct = {
        name: set().union(
            *(
                selected_nodes(member.get("selector") or {}, nodes)
                for member in members
                if member.get("type") == MemberType.NODE
            )
        )
        for name, members in members_by_name.items()
    }
    covered: dict[str, set[str]] = {}

    def visit(name: str, path: frozenset[str]) -> set[str]:
        if name in covered:
            return covered[name]
        found = set(direct.get(name, set()))
        for child in children(members_by_name.get(name, [])):
            if child in members_by_name and child not in path:
                found |= visit(child, path | {child})
        if path == {name}:  # a walk's root: final (a child seen inside a cycle may be partial)
            covered[name] = found
        return found

    for name in members_by_name:
        visit(name, frozenset({name}))
    return covered
