"""The session's network topology: the HyperNode tree and each job's topology, set up at open.

Volcano's counterpart: ``OpenSession``'s HyperNode steps in ``pkg/scheduler/framework/session.go``
(``addClusterTopHyperNode``, ``parseHyperNodesTiers``, ``adjustNetworkTopologySpec``,
``recoverAllocatedHyperNode``). Nothing here runs for a cluster without HyperNodes whose jobs carry
no ``networkTopology``: ``ssn.hypernodes`` stays None and allocate keeps its flat path.

Each job's topology is rewritten on the session's copy, as Volcano rewrites its copy: a
``highestTierName`` some HyperNode's ``tierName`` names becomes that tier, and soft mode becomes
hard mode up to the virtual top tier (soft jobs search the whole cluster, lowest tiers first). A
tier name no HyperNode carries stays untranslated: the job is then no hard-topology job and is
placed on the flat path (its pods still scored by the LCA of their job's HyperNode).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from scheduler.engine.api.hypernode import HARD, SOFT, HyperNodeTree
from scheduler.engine.api.sub_job import sub_jobs_of
from scheduler.engine.api.types import ALLOCATED_STATUSES

if TYPE_CHECKING:
    from scheduler.engine.api.job_info import JobInfo
    from scheduler.engine.framework.session import Session

__all__ = ["hard_tier", "open_topology", "record_allocated_hypernodes"]


def open_topology(ssn: Session) -> None:
    """Build ``ssn.hypernodes`` and adjust every topology job (see the module docstring)."""
    cluster = ssn.cluster
    topology_jobs = [j for j in ssn.jobs.values() if j.network_topology is not None]
    sub_group_jobs = [
        j for j in ssn.jobs.values() if any(p.network_topology for p in j.sub_group_policy)
    ]
    if not cluster.hypernodes and not topology_jobs and not sub_group_jobs:
        return
    tree = HyperNodeTree.build(
        cluster.hypernodes.values(),
        [n.name for n in ssn.node_list],
        [n.labels for n in ssn.node_list],
    )
    ssn.hypernodes = tree
    for job in topology_jobs:
        spec = job.network_topology
        assert spec is not None
        if spec.highest_tier_allowed is None and spec.highest_tier_name:
            tier = tree.tier_names.get(spec.highest_tier_name)
            if tier is not None:
                spec = replace(spec, highest_tier_allowed=tier, highest_tier_name="")
        if spec.mode == SOFT:
            spec = replace(
                spec, mode=HARD, highest_tier_allowed=tree.top_tier, highest_tier_name=""
            )
        job.network_topology = spec
        job.allocated_hypernode = _recovered(ssn, tree, job)
    for job in ssn.jobs.values():
        if job.sub_group_policy:
            _adjust_sub_jobs(ssn, tree, job)


def _adjust_sub_jobs(ssn: Session, tree: HyperNodeTree, job: JobInfo) -> None:
    """Rewrite the sub-jobs' topologies as the job's (a soft sub-job becomes hard up to the job's
    own tier, or the top without one) and recover each one's HyperNode from its placed pods."""
    spec = job.network_topology
    ceiling = tree.top_tier
    if spec is not None and spec.highest_tier_allowed is not None:
        ceiling = spec.highest_tier_allowed
    for sub in sub_jobs_of(job).values():
        own = sub.network_topology
        if own is None:
            continue
        if own.highest_tier_allowed is None and own.highest_tier_name:
            tier = tree.tier_names.get(own.highest_tier_name)
            if tier is not None:
                own = replace(own, highest_tier_allowed=tier, highest_tier_name="")
        if own.mode == SOFT:
            own = replace(own, mode=HARD, highest_tier_allowed=ceiling, highest_tier_name="")
        sub.network_topology = own
        rows = []
        for task in sub.tasks.values():
            node = ssn.nodes.get(task.node_name) if task.node_name else None
            if node is not None and task.status in ALLOCATED_STATUSES:
                rows.append(node.index)
        sub.allocated_hypernode = tree.lowest_holding(rows) if rows else ""


def _recovered(ssn: Session, tree: HyperNodeTree, job: JobInfo) -> str:
    """Return the lowest HyperNode holding the nodes of every allocated pod of ``job``."""
    rows = []
    for task in job.tasks_in(*ALLOCATED_STATUSES):
        node = ssn.nodes.get(task.node_name) if task.node_name else None
        if node is not None:
            rows.append(node.index)
    return tree.lowest_holding(rows) if rows else ""


def hard_tier(job: JobInfo) -> int | None:
    """Return the highest tier a hard-topology job may span, or None for any other job."""
    spec = job.network_topology
    if spec is None or spec.mode != HARD:
        return None
    return spec.highest_tier_allowed


def record_allocated_hypernodes(ssn: Session) -> None:
    """Write each topology job's HyperNode into the decisions (the PodGroup annotation)."""
    if ssn.hypernodes is None:
        return
    for job in ssn.jobs.values():
        if job.network_topology is not None and job.allocated_hypernode:
            ssn.decisions.allocated_hypernodes[job.uid] = job.allocated_hypernode
