"""Where a set of nodes sits in the network topology: the lowest-tier HyperNode holding them.

As Volcano recovers a job's allocated HyperNode each session (the lowest-tier HyperNode that
contains the nodes of all its allocated pods), so a page can say where a job's gang landed
without the scheduler: ``placed_in`` reads the HyperNodes and only the named nodes (two
queries, whatever the number of pods; one when there is no HyperNode). Ties within a tier
(a node claimed by two HyperNodes of one tier) go to the first name, as the engine's tree
breaks them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from core.models import Node
from topology.members import NodeLabels, covered_nodes
from topology.models import HyperNode

__all__ = ["PLACED_PHASES", "lowest_holding", "placed_in"]

# A pod bound to a node in these phases holds its place there (Volcano's allocated states).
PLACED_PHASES = ("Pending", "Running")


def lowest_holding(
    names: Iterable[str], covered: Mapping[str, set[str]], tiers: Mapping[str, int]
) -> str | None:
    """Return the lowest-tier HyperNode whose ``covered`` nodes include every one of ``names``.

    ``covered`` maps each HyperNode to the nodes it covers, ``tiers`` to its tier. None when
    ``names`` is empty or no HyperNode holds them all (the virtual top is not a HyperNode).
    """
    wanted = set(names)
    if not wanted:
        return None
    holding = [name for name, nodes in covered.items() if wanted <= nodes]
    if not holding:
        return None
    return min(holding, key=lambda name: (tiers.get(name, 0), name))


def placed_in(node_names: Iterable[str]) -> HyperNode | None:
    """Return the lowest-tier HyperNode that contains every node of ``node_names``.

    Members are resolved against the named nodes only (their labels, for label members), so
    the cost does not grow with the cluster: a HyperNode holds all the names exactly when it
    covers each of them.
    """
    wanted = set(node_names)
    if not wanted:
        return None
    hyper_nodes = {hn.name: hn for hn in HyperNode.objects.all()}
    if not hyper_nodes:
        return None
    nodes = [
        NodeLabels(name, labels or {})
        for name, labels in Node.objects.filter(name__in=wanted).values_list("name", "labels")
    ]
    covered = covered_nodes({n: list(hn.members or []) for n, hn in hyper_nodes.items()}, nodes)
    found = lowest_holding(wanted, covered, {n: hn.tier for n, hn in hyper_nodes.items()})
    return hyper_nodes[found] if found else None
