"""The HyperNode controller: label discovery, then each HyperNode's ``status.nodeCount``.

As Volcano's ``hyperNode-controller`` (``pkg/controllers/hypernode``), level-triggered: each
pass

1. runs the enabled discovery sources of the controller ConfigMap (``topology.discovery``);
   of Volcano's sources only ``label`` needs nothing outside the cluster, and only it runs
   here (``ufm`` and ``roce`` talk to fabric managers this cluster has none of);
2. sets every HyperNode's ``status.nodeCount`` to the number of existing nodes it covers: its
   Node members' nodes and its children's (``topology.members``). Volcano counts a parent's
   direct member names instead, and only when the HyperNode itself changes; counting nodes,
   and again whenever nodes come, go or change labels, makes the column say what it names.

A pass that finds the nodes, the HyperNodes and the ConfigMap as the last one left them does
nothing (three queries); one that finds neither a HyperNode nor the ConfigMap, two.
"""

from __future__ import annotations

import datetime as dt

from django.db.models import Count, Max, Sum

from core.models import ConfigMap, Node
from topology.discovery.config import config_map_location, enabled_source, load_discovery_config
from topology.discovery.label import (
    SOURCE,
    SOURCE_LABEL,
    discover,
    reconcile_discovered,
    topology_types,
)
from topology.members import NodeLabels, covered_nodes
from topology.models import HyperNode

__all__ = ["count_nodes", "discover_from_labels", "reconcile_hyper_nodes"]

# What the last pass left (None: no pass yet in this process).
_last: tuple[object, ...] | None = None


def _fingerprint() -> tuple[object, ...] | None:
    """Return what the pass depends on; None when there is nothing to do (no HyperNode and no
    controller ConfigMap), which costs no look at the nodes."""
    hyper_nodes = tuple(HyperNode.objects.order_by("pk").values_list("uid", "resource_version"))
    namespace, name = config_map_location()
    config = tuple(
        ConfigMap.objects.filter(namespace=namespace, name=name).values_list(
            "uid", "resource_version"
        )
    )
    if not hyper_nodes and not config:
        return None
    nodes = Node.objects.aggregate(n=Count("pk"), v=Sum("resource_version"), top=Max("pk"))
    return (nodes["n"], nodes["v"], nodes["top"]), hyper_nodes, config


def _nodes() -> list[NodeLabels]:
    return [
        NodeLabels(name, labels or {})
        for name, labels in Node.objects.values_list("name", "labels")
    ]


def discover_from_labels(nodes: list[NodeLabels]) -> int:
    """Run the ``label`` source if the ConfigMap enables it; return how many HyperNodes changed."""
    config = enabled_source(load_discovery_config(), SOURCE)
    if config is None:
        return 0
    existing = list(HyperNode.objects.filter(**{f"labels__{SOURCE_LABEL}": SOURCE}))
    taken = set(HyperNode.objects.values_list("name", flat=True))
    found = discover(topology_types(config), nodes, existing, taken)
    return reconcile_discovered(found, existing)


def count_nodes(nodes: list[NodeLabels]) -> int:
    """Bring every HyperNode's ``status.nodeCount`` up to date; return how many changed."""
    hyper_nodes = list(HyperNode.objects.order_by("pk"))
    covered = covered_nodes({hn.name: list(hn.members or []) for hn in hyper_nodes}, nodes)
    changed = 0
    for hyper_node in hyper_nodes:
        count = len(covered.get(hyper_node.name, ()))
        if hyper_node.node_count != count:
            hyper_node.node_count = count
            hyper_node.save(update_fields=["node_count"])
            changed += 1
    return changed


def reconcile_hyper_nodes(now: dt.datetime) -> int:
    """Run discovery and count every HyperNode's nodes; return how many HyperNodes changed."""
    global _last
    fingerprint = _fingerprint()
    if fingerprint is None or fingerprint == _last:
        _last = fingerprint
        return 0
    nodes = _nodes()
    changed = discover_from_labels(nodes)
    changed += count_nodes(nodes)
    # The writes moved the HyperNodes' versions on: remember what they are now.
    _last = _fingerprint()
    return changed
