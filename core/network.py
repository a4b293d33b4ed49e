"""Addresses of the simulated cluster: node pod ranges and IPs, pod IPs, Service cluster IPs.

A real cluster hands these out in three places, and so does this module:

- **node IPAM** (kube-controller-manager's ``--allocate-node-cidrs``): each node gets a pod
  range, ``spec.podCIDR``, the next free ``/24`` of the cluster range (``10.128.0.0/9`` by
  default: room for 32,768 nodes, as the clusters this project simulates reach 20,000, where
  kind's ``10.244.0.0/16`` holds 256; it stays clear of the Service range;
  ``VOLCANO_CLUSTER_CIDR`` and ``VOLCANO_NODE_CIDR_MASK_SIZE`` change it, like
  ``--cluster-cidr`` and ``--node-cidr-mask-size``). A node a manifest gave a range keeps it. A node without an
  ``InternalIP`` is given one too (kubelet reports its host's; the simulated host's is
  ``172.18.0.<n+2>``, kind's node network, numbered after its range). When the cluster
  range is used up, a node gets none, and its pods get no address (kube-controller-manager
  reports ``CIDRNotAvailable``);
- **the CNI plugin** (host-local IPAM): a pod that starts gets the lowest free address of its
  node's range, from ``.2`` on (``.1`` is the node's bridge); addresses of pods that ended are
  free again;
- **the Service IP allocator** (``--service-cluster-ip-range``, ``10.96.0.0/12``): a
  Service that asks for none gets the lowest free address from ``10.96.0.1`` on.
"""

from __future__ import annotations

import ipaddress
import logging
import os
from collections.abc import Iterable

from django.conf import settings
from django.db import IntegrityError, transaction

from core.models import CLUSTER_IP_NONE, Node, Pod, Service

__all__ = [
    "SERVICE_CIDR",
    "allocate_cluster_ip",
    "allocate_node_networks",
    "allocate_pod_ips",
    "cluster_cidr",
    "internal_ip",
]

logger = logging.getLogger(__name__)

SERVICE_CIDR = ipaddress.ip_network("10.96.0.0/12")
DEFAULT_CLUSTER_CIDR = "10.128.0.0/9"
NODE_NETWORK = ipaddress.ip_network("172.18.0.0/16")
ACTIVE = ("Pending", "Running")


def _setting(name: str) -> str:
    """Return Django's setting ``name``, else the environment's (``""`` when neither has it)."""
    return str(getattr(settings, name, "") or os.environ.get(name, ""))


def cluster_cidr() -> tuple[ipaddress.IPv4Network, int]:
    """Return the cluster's pod range and the prefix length of each node's share."""
    cidr = _setting("VOLCANO_CLUSTER_CIDR") or DEFAULT_CLUSTER_CIDR
    size = int(_setting("VOLCANO_NODE_CIDR_MASK_SIZE") or 24)
    network = ipaddress.ip_network(cidr, strict=False)
    assert isinstance(network, ipaddress.IPv4Network), "only IPv4 clusters are simulated"
    return network, max(size, network.prefixlen)


def internal_ip(node: Node) -> str:
    """Return the node's ``InternalIP`` (``""`` when it has none)."""
    for address in node.addresses or ():
        if address.get("type") == "InternalIP":
            return str(address.get("address") or "")
    return ""


def allocate_node_networks(node_pks: Iterable[int] | None = None) -> int:
    """Give each node without a pod range (of ``node_pks``, or every one) a range and an IP.

    Returns how many nodes were given a range. Idempotent; a race with another process
    allocating the same range loses to the unique constraint and is retried next time.
    """
    lacking = Node.objects.filter(pod_cidr="")
    if node_pks is not None:
        lacking = lacking.filter(pk__in=list(node_pks))
    todo = list(lacking.order_by("pk").values_list("pk", flat=True))
    if not todo:
        return 0
    network, size = cluster_cidr()
    used = set(Node.objects.exclude(pod_cidr="").values_list("pod_cidr", flat=True))
    free = (subnet for subnet in network.subnets(new_prefix=size) if str(subnet) not in used)
    given = 0
    for pk in todo:
        subnet = next(free, None)
        if subnet is None:
            logger.warning("no pod range left in %s for %d node(s)", network, len(todo) - given)
            break
        node = Node.objects.filter(pk=pk, pod_cidr="").first()
        if node is None:
            continue
        index = int(subnet.network_address) - int(network.network_address)
        index //= subnet.num_addresses
        node.pod_cidr = str(subnet)
        fields = ["pod_cidr"]
        if not internal_ip(node) and index + 2 < NODE_NETWORK.num_addresses - 1:
            address = str(NODE_NETWORK.network_address + index + 2)
            node.addresses = [{"type": "InternalIP", "address": address}, *node.addresses]
            fields.append("addresses")
        try:
            with transaction.atomic():
                node.save(update_fields=fields)
        except IntegrityError:
            logger.info("pod range %s went to another node first", subnet)
            continue
        given += 1
    return given


def allocate_pod_ips(pods: Iterable[tuple[int, int | None]]) -> dict[int, str]:
    """Return an address for each ``(pod pk, node pk)`` starting now, from its node's range.

    Addresses held by the node's Pending and Running pods are taken; a node without a range
    is given one first; a pod whose node has none left gets no address (left out).
    """
    by_node: dict[int, list[int]] = {}
    for pk, node in pods:
        if node is not None:
            by_node.setdefault(node, []).append(pk)
    if not by_node:
        return {}
    allocate_node_networks(by_node)
    ranges = dict(Node.objects.filter(pk__in=list(by_node)).values_list("pk", "pod_cidr"))
    held: dict[int, set[str]] = {}
    taken = (
        Pod.objects.filter(node_id__in=list(by_node), phase__in=ACTIVE)
        .exclude(pod_ip="")
        .values_list("node_id", "pod_ip")
    )
    for node, ip in taken:
        held.setdefault(node, set()).add(ip)
    given: dict[int, str] = {}
    for node, pks in by_node.items():
        if not ranges.get(node):
            continue
        subnet = ipaddress.ip_network(ranges[node], strict=False)
        busy = held.get(node, set())
        hosts = (str(ip) for ip in subnet.hosts() if int(ip) - int(subnet.network_address) >= 2)
        free = (ip for ip in hosts if ip not in busy)
        for pk in sorted(pks):
            address = next(free, None)
            if address is None:
                break
            given[pk] = address
    return given


def allocate_cluster_ip() -> str:
    """Return the lowest address of the service range that no Service holds."""
    used = set(
        Service.objects.exclude(cluster_ip__in=["", CLUSTER_IP_NONE]).values_list(
            "cluster_ip", flat=True
        )
    )
    for address in SERVICE_CIDR.hosts():
        if str(address) not in used:
            return str(address)
    raise ValueError(f"the service range {SERVICE_CIDR} is full")
