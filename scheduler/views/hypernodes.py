"""The Topology pages: the HyperNode tree (network tiers) and one HyperNode's members, nodes and
jobs.

Every role reads them (HyperNodes and nodes are cluster-wide); the jobs shown are those of the
namespaces the reader may read, the others only counted. Each live region refreshes on node,
pod and HyperNode changes and on sessions, as the Nodes pages do.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404, HttpRequest, HttpResponse

from accounts.roles import allowed_namespaces, role_required
from console.render import render_page
from core.models import Node
from scheduler.hypernode_tree import Free, TreeNode, member_rows, topology
from topology.discovery.config import CONFIG_KEY, config_map_location

__all__ = ["hypernode_detail", "hypernode_list"]

NODES_SHOWN = 500  # a HyperNode's page lists this many of its nodes


@dataclass(frozen=True, slots=True)
class NodeLine:
    """One node of a HyperNode's page: the node, which member or child brings it, what is free."""

    node: Node
    via: str  # "" when one of its own Node members selects it, else the child holding it
    free: list[Free]


@role_required()
def hypernode_list(request: HttpRequest) -> HttpResponse:
    """Render the HyperNode tree from the top tier down."""
    tree = topology(allowed_namespaces(request.user))
    namespace, name = config_map_location()
    context = {
        "tree": tree,
        "count": len(tree.by_name),
        "config_map": f"{namespace}/{name}",
        "config_key": CONFIG_KEY,
    }
    return render_page(
        request, "scheduler/hypernode_list.html", context, fragments=("hypernode-tree",)
    )


def _node_lines(
    item: TreeNode, tree_nodes: dict[str, Node], free: dict[str, list[Free]]
) -> list[NodeLine]:
    """Return the first ``NODES_SHOWN`` of ``item``'s nodes by name, each with what brings it."""
    holder = {n: child.name for child in item.children for n in child.nodes}
    return [
        NodeLine(tree_nodes[name], "" if name in item.direct else holder.get(name, ""), free[name])
        for name in sorted(item.nodes)[:NODES_SHOWN]
    ]


@role_required()
def hypernode_detail(request: HttpRequest, name: str) -> HttpResponse:
    """Render one HyperNode: where it sits, its members, its nodes and the jobs landed in it."""
    tree = topology(allowed_namespaces(request.user))
    item = tree.by_name.get(name)
    if item is None:
        raise Http404
    shown = sorted(item.nodes)[:NODES_SHOWN]
    resources = [f.resource for f in item.free]
    free = {n: tree.node_free(n, resources) for n in shown}
    ancestors = []
    current = item.parent
    while current and current not in ancestors and current != name:
        ancestors.append(current)
        current = tree.by_name[current].parent
    # Jobs landed lower down, in its children: still inside this HyperNode.
    below = [(child, job) for child in _descendants(item) for job in child.jobs]
    context = {
        "item": item,
        "ancestors": list(reversed(ancestors)),
        "members": member_rows(item, tree),
        "nodes": _node_lines(item, tree.nodes, free),
        "more_nodes": max(len(item.nodes) - NODES_SHOWN, 0),
        "below": below,
    }
    return render_page(
        request, "scheduler/hypernode_detail.html", context, fragments=("hypernode-body",)
    )


def _descendants(item: TreeNode) -> list[TreeNode]:
    out: list[TreeNode] = []
    for child in item.children:
        out.append(child)
        out.extend(_descendants(child))
    return out
