"""The topology half of a scenario export: HyperNodes, Numatopology, node groups, networkTopology.

``export.snapshot_to_scenario`` writes what a session saw; these are the objects and fields of
Volcano's device and topology plugins (``shared/docs/volcano-devices-and-topology.md``), written
back in the shapes the scenario reader takes, so an exported session with HyperNodes, NUMA
nodes or queue node groups replays the same decisions under ``manage.py simulate``.
"""

from __future__ import annotations

from typing import Any

from scheduler.engine.api.cluster_info import ClusterInfo
from scheduler.engine.api.hypernode import HyperNodeInfo, NetworkTopology
from scheduler.engine.api.numa import NumatopoInfo, format_cpuset
from scheduler.engine.api.pdb_info import PdbSelector
from scheduler.engine.api.queue_info import NodeGroupTerms, QueueAffinity
from scheduler.engine.api.sub_job import SubGroupPolicy

__all__ = [
    "hypernode_objects",
    "label_selector",
    "network_topology",
    "numatopology_objects",
    "queue_affinity",
    "sub_group_policies",
]


def label_selector(selector: PdbSelector) -> dict[str, Any]:
    """A ``metav1.LabelSelector`` as written."""
    out: dict[str, Any] = {"matchLabels": dict(selector.match_labels)}
    if selector.expressions:
        out["matchExpressions"] = [
            {"key": key, "operator": op, **({"values": list(values)} if values else {})}
            for key, op, values in selector.expressions
        ]
    return out


def _hypernode(info: HyperNodeInfo) -> dict[str, Any]:
    members: list[dict[str, Any]] = []
    for member in info.members:
        if member.exact_match is not None:
            selector: dict[str, Any] = {"exactMatch": {"name": member.exact_match}}
        elif member.regex_match is not None:
            selector = {"regexMatch": {"pattern": member.regex_match}}
        else:
            selector = {"labelMatch": label_selector(member.label_match or PdbSelector())}
        members.append({"type": member.type, "selector": selector})
    spec: dict[str, Any] = {"tier": info.tier, "members": members}
    if info.tier_name:
        spec["tierName"] = info.tier_name
    return {"apiVersion": "topology.volcano.sh/v1alpha1", "kind": "HyperNode",
            "metadata": {"name": info.name}, "spec": spec}  # fmt: skip


def hypernode_objects(cluster: ClusterInfo) -> list[dict[str, Any]]:
    """The session's HyperNodes, by name."""
    return [_hypernode(info) for _, info in sorted(cluster.hypernodes.items())]


def _numatopology(info: NumatopoInfo) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "policies": dict(info.policies),
        "numares": {"cpu": {"allocatable": format_cpuset(info.cpu_allocatable),
                            "capacity": len(info.cpu_detail)}},
        "cpuDetail": {str(cpu): {"numa": at.numa, "socket": at.socket, "core": at.core}
                      for cpu, at in sorted(info.cpu_detail.items())},
    }  # fmt: skip
    if info.reserved_cpu_millis is not None:
        spec["resReserved"] = {"cpu": f"{info.reserved_cpu_millis}m"}
    return {"apiVersion": "nodeinfo.volcano.sh/v1alpha1", "kind": "Numatopology",
            "metadata": {"name": info.name}, "spec": spec}  # fmt: skip


def numatopology_objects(cluster: ClusterInfo) -> list[dict[str, Any]]:
    """The nodes' Numatopology objects (nodes without one have none)."""
    return [
        _numatopology(node.numatopology)
        for node in cluster.node_list
        if node.numatopology is not None
    ]


def _terms(terms: NodeGroupTerms | None) -> dict[str, list[str]] | None:
    if terms is None:
        return None
    out: dict[str, list[str]] = {}
    if terms.required:
        out["requiredDuringSchedulingIgnoredDuringExecution"] = list(terms.required)
    if terms.preferred:
        out["preferredDuringSchedulingIgnoredDuringExecution"] = list(terms.preferred)
    return out


def queue_affinity(affinity: QueueAffinity) -> dict[str, Any]:
    """A Queue's ``spec.affinity`` as written."""
    out: dict[str, Any] = {}
    if (terms := _terms(affinity.node_group_affinity)) is not None:
        out["nodeGroupAffinity"] = terms
    if (terms := _terms(affinity.node_group_anti_affinity)) is not None:
        out["nodeGroupAntiAffinity"] = terms
    return out


def sub_group_policies(policies: tuple[SubGroupPolicy, ...]) -> list[dict[str, Any]]:
    """A PodGroup's ``spec.subGroupPolicy`` as written."""
    out = []
    for policy in policies:
        item: dict[str, Any] = {
            "name": policy.name,
            "subGroupSize": policy.sub_group_size,
            "minSubGroups": policy.min_sub_groups,
        }
        if policy.match_label_keys:
            item["matchLabelKeys"] = list(policy.match_label_keys)
        if policy.label_selector is not None:
            item["labelSelector"] = label_selector(policy.label_selector)
        if policy.network_topology is not None:
            item["networkTopology"] = network_topology(policy.network_topology)
        out.append(item)
    return out


def network_topology(topology: NetworkTopology) -> dict[str, Any]:
    """A PodGroup's ``spec.networkTopology`` as written."""
    out: dict[str, Any] = {"mode": topology.mode}
    if topology.highest_tier_allowed is not None:
        out["highestTierAllowed"] = topology.highest_tier_allowed
    if topology.highest_tier_name:
        out["highestTierName"] = topology.highest_tier_name
    return out
