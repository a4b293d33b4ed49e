"""The domains gangpreempt and gangreclaim search victims in: HyperNodes, widest first.

Volcano's counterpart: ``PickDomainsFromGradients`` and ``GetCandidateDomains`` in
``pkg/scheduler/actions/utils/util.go``. A hard-topology job's domains are its HyperNode gradient
asked for eviction (``SearchPurpose.EVICT``), flattened and capped at ``maxDomains``; any other
job, and every job in a session without HyperNodes, has the whole cluster (the virtual top
HyperNode) as its one domain. A session without network-topology-aware answers the gradient with
the top HyperNode alone, so the cluster is the domain there too.
"""

from __future__ import annotations

from scheduler.engine.api.hypernode import TOP_HYPERNODE
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.framework import SearchPurpose, Session
from scheduler.engine.framework.topology import hard_tier

__all__ = ["CLUSTER_TOP_HYPERNODE", "candidate_domains", "pick_domains"]

CLUSTER_TOP_HYPERNODE = TOP_HYPERNODE


def pick_domains(gradient: list[list[str]], max_domains: int, fallback: str) -> list[str]:
    """Flatten ``gradient`` into distinct HyperNode names in order, at most ``max_domains`` (<= 0:
    all); ``[fallback]`` when it names none and ``fallback`` is set."""
    seen: set[str] = set()
    out: list[str] = []
    for group in gradient:
        for name in group:
            if not name or name in seen:
                continue
            seen.add(name)
            out.append(name)
            if 0 < max_domains <= len(out):
                return out
    if not out and fallback:
        out.append(fallback)
    return out


def candidate_domains(ssn: Session, job: JobInfo, max_domains: int) -> list[str]:
    """Return the HyperNodes ``job`` searches victims in, in order (see the module docstring)."""
    highest = hard_tier(job)
    if ssn.hypernodes is None or highest is None:
        return [TOP_HYPERNODE]
    minimum = None if job.min_resources is None else ssn.resource_index.vector(job.min_resources)
    gradient = ssn.hypernode_gradient(
        job, TOP_HYPERNODE, highest, job.allocated_hypernode, minimum, SearchPurpose.EVICT
    )
    return pick_domains(gradient, max_domains, "")
