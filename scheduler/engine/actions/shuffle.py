"""Shuffle action: evict the running pods the victim hooks name (rebalancing, not placing).

Volcano's counterpart: ``pkg/scheduler/actions/shuffle``. Every Running pod of the session's
jobs is offered to the plugins' victim hooks (``enabledVictim``: pdb, tdm; the first tier that
names any decides, its plugins' answers united) and each one named is evicted at once, with the
reason ``shuffle`` and the plugin whose hook named it (``shuffle (tdm)``). No pod is placed: a
later session's allocate finds the freed room.
"""

from __future__ import annotations

from scheduler.engine.api.types import TaskStatus
from scheduler.engine.framework import Action, Session, register_action

__all__ = ["REASON", "ShuffleAction"]

REASON = "shuffle"


@register_action
class ShuffleAction(Action):
    """Evicts every running pod the enabled victim hooks return."""

    name = "shuffle"

    def execute(self, ssn: Session) -> None:
        """Offer the running pods to the victim hooks and evict what they return."""
        running = [
            task
            for job in ssn.jobs.values()
            for task in job.task_status_index.get(TaskStatus.RUNNING, {}).values()
        ]
        if not running or not ssn.has_fns("victim_tasks"):
            return
        for victim, plugin in ssn.named_victim_tasks(running):
            # Volcano's eviction fails for a pod whose node or job the session does not know
            # (logged, skipped); a hook naming a pod that is not on a node is skipped the same.
            if victim.node_name not in ssn.nodes or victim.job not in ssn.jobs:
                continue
            if victim.status != TaskStatus.RUNNING:
                continue
            statement = ssn.statement()
            statement.evict(victim, REASON, plugin=plugin)
            statement.commit()
