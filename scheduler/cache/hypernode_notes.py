"""The HyperNode a job's gang landed in, written on its PodGroup after the session.

Volcano's allocate records ``JobInfo.AllocatedHyperNode`` and the cache writes it as the PodGroup
annotation ``volcano.sh/job-allocated-hypernode`` (the scheduler never reads it back: each
session recovers it from the job's running pods). It is what a user, ``kubectl describe
podgroup`` and the console read to see where a topology job landed. The engine's virtual top
HyperNode (the whole cluster) is not a HyperNode anyone can look up, so it is never written.
"""

from __future__ import annotations

from queues.models import PodGroup
from scheduler.cache.snapshot import Snapshot
from scheduler.engine.api.hypernode import TOP_HYPERNODE
from scheduler.engine.framework.decisions import Decisions

__all__ = ["ALLOCATED_HYPERNODE", "write_allocated_hypernodes"]

ALLOCATED_HYPERNODE = "volcano.sh/job-allocated-hypernode"


def write_allocated_hypernodes(snapshot: Snapshot, decisions: Decisions) -> int:
    """Write each job's new HyperNode on its PodGroup (only changes); return how many."""
    changed: dict[int, str] = {}
    for uid, hypernode in decisions.allocated_hypernodes.items():
        job = snapshot.cluster.jobs.get(uid)
        known = snapshot.pod_groups.get(uid)
        if not hypernode or hypernode == TOP_HYPERNODE or job is None or known is None:
            continue
        if job.annotations.get(ALLOCATED_HYPERNODE) != hypernode:
            changed[known[0]] = hypernode
    # Few rows (jobs whose HyperNode changed this session): saved one by one, each with its
    # new resourceVersion and change event, after the status writes of the same transaction.
    for group in PodGroup.objects.select_for_update().filter(pk__in=changed):
        group.annotations = {**group.annotations, ALLOCATED_HYPERNODE: changed[group.pk]}
        group.save(update_fields=["annotations"])
    return len(changed)
