"""Gangreclaim action: a starving job takes victim bundles back from other, reclaimable queues.

Volcano's counterpart: ``pkg/scheduler/actions/gangreclaim``. Queues are served in queue order,
skipping overused ones; a starving, admitted job whose queue the plugins let reclaim for all its
pending pods (Preemptive) takes victims only among Running pods of jobs in other queues whose
``spec.reclaimable`` is not false, with the same pod and PodGroup ``volcano.sh/preemptable``
rules and UnifiedEvictable hooks as gangpreempt. Bundles from the queue the victim queue order
puts first go first. How bundles are chosen and the job pipelined: ``gang_eviction.py``.
Arguments: ``maxDomains`` (default 8) and ``allowWholeBundle`` (default true).
"""

from __future__ import annotations

from scheduler.engine.actions.gang_eviction import GANG_EVICTION_ARGUMENTS, run_gang_eviction
from scheduler.engine.api.eviction import EvictionKind
from scheduler.engine.framework import Action, Session, register_action

__all__ = ["GangReclaimAction"]


@register_action
class GangReclaimAction(Action):
    """Evicts victim bundles of other queues' jobs for starving jobs."""

    name = "gangreclaim"
    arguments_schema = GANG_EVICTION_ARGUMENTS

    def execute(self, ssn: Session) -> None:
        """Run gangreclaim on ``ssn``."""
        run_gang_eviction(ssn, EvictionKind.GANG_RECLAIM)
