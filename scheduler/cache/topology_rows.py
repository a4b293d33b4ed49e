"""The network topology as the engine reads it: HyperNodes, jobs' networkTopology, queues' node groups.

Volcano's counterparts: the scheduler cache's HyperNode informer (``HyperNodesInfo``, rebuilt
into the per-session tree), ``PodGroup.spec.networkTopology`` on the job, and
``Queue.spec.affinity`` read by nodegroup. The rows hold what admission accepted, so each is
turned into the engine's objects by the same readers the scenario files use
(``read_hypernode``, ``read_network_topology``, ``read_sub_group_policies``,
``read_queue_affinity``): a live session and its
exported scenario read one way. A row those readers refuse (written before a rule existed) is
logged and left out rather than stopping every session.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from apis.errors import ManifestError
from scheduler.engine.api.hypernode import HyperNodeInfo, NetworkTopology
from scheduler.engine.api.queue_info import QueueAffinity
from scheduler.engine.api.sub_job import SubGroupPolicy
from scheduler.engine.util.hypernode_manifest import read_hypernode, read_network_topology
from scheduler.engine.util.manifests import read_queue_affinity
from scheduler.engine.util.sub_group_manifest import read_sub_group_policies
from topology.models import HyperNode

__all__ = [
    "hypernode_infos",
    "hypernode_manifest",
    "job_network_topology",
    "job_sub_group_policy",
    "queue_affinity",
]

log = logging.getLogger(__name__)


def hypernode_manifest(name: str, tier: int, tier_name: str, members: Any) -> dict[str, Any]:
    """Return a HyperNode row's fields as the manifest the engine's reader takes."""
    spec: dict[str, Any] = {"tier": tier, "members": list(members or ())}
    if tier_name:
        spec["tierName"] = tier_name
    return {
        "apiVersion": "topology.volcano.sh/v1alpha1",
        "kind": "HyperNode",
        "metadata": {"name": name},
        "spec": spec,
    }


def hypernode_infos() -> list[HyperNodeInfo]:
    """Every HyperNode (one query; none on a cluster without a network topology)."""
    infos: list[HyperNodeInfo] = []
    for name, tier, tier_name, members in HyperNode.objects.values_list(
        "name", "tier", "tier_name", "members"
    ):
        manifest = hypernode_manifest(name, tier, tier_name, members)
        try:
            infos.append(read_hypernode(manifest, manifest["metadata"], f"hypernodes/{name}"))
        except ManifestError as exc:
            log.warning("HyperNode %s left out of the session: %s", name, exc)
    return infos


def job_network_topology(uid: str, raw: Mapping[str, Any] | None) -> NetworkTopology | None:
    """A PodGroup's ``spec.networkTopology`` (None when it has none)."""
    if raw is None:
        return None
    try:
        return read_network_topology(raw, f"podgroups/{uid}.spec.networkTopology")
    except ManifestError as exc:
        log.warning("PodGroup %s: networkTopology ignored: %s", uid, exc)
        return None


def job_sub_group_policy(uid: str, raw: object) -> tuple[SubGroupPolicy, ...]:
    """A PodGroup's ``spec.subGroupPolicy`` (empty when it has none or it does not read)."""
    if not raw:
        return ()
    try:
        return read_sub_group_policies(raw, f"podgroups/{uid}.spec.subGroupPolicy")
    except ManifestError as exc:
        log.warning("PodGroup %s: subGroupPolicy ignored: %s", uid, exc)
        return ()


def queue_affinity(name: str, raw: Mapping[str, Any] | None) -> QueueAffinity | None:
    """A Queue's ``spec.affinity`` (None when absent; ``{}`` is an empty affinity)."""
    if raw is None:
        return None
    try:
        return read_queue_affinity(raw, f"queues/{name}.spec.affinity")
    except ManifestError as exc:
        log.warning("Queue %s: affinity ignored: %s", name, exc)
        return None
