"""Gangpreempt action: a starving job evicts whole-gang-aware bundles of lower-priority jobs.

Volcano's counterpart: ``pkg/scheduler/actions/gangpreempt``. Within its own queue a starving,
admitted job takes victims only from jobs of strictly lower PodGroup priority, and only Bound or
Running pods that may be preempted (pod ``volcano.sh/preemptable`` not false, PodGroup
``volcano.sh/preemptable`` unset or true, and every plugin's UnifiedEvictable hook agreeing).
How bundles are chosen and the job pipelined: ``gang_eviction.py``. Arguments (in the conf's
``configurations``): ``maxDomains`` (default 8) and ``allowWholeBundle`` (default true).
"""

from __future__ import annotations

from scheduler.engine.actions.gang_eviction import GANG_EVICTION_ARGUMENTS, run_gang_eviction
from scheduler.engine.api.eviction import EvictionKind
from scheduler.engine.framework import Action, Session, register_action

__all__ = ["GangPreemptAction"]


@register_action
class GangPreemptAction(Action):
    """Evicts victim bundles of lower-priority jobs in the same queue for starving jobs."""

    name = "gangpreempt"
    arguments_schema = GANG_EVICTION_ARGUMENTS

    def execute(self, ssn: Session) -> None:
        """Run gangpreempt on ``ssn``."""
        run_gang_eviction(ssn, EvictionKind.GANG_PREEMPT)
