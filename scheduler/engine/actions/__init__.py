"""Every built-in action, imported in one explicit sorted list (Volcano's ``factory.go``).

Importing a module registers its action. Add one line per new action module, keep the list
sorted; there is no autodiscovery.
"""

from __future__ import annotations

from scheduler.engine.actions import (
    allocate,
    backfill,
    enqueue,
    gangpreempt,
    gangreclaim,
    preempt,
    reclaim,
    shuffle,
)

__all__ = [
    "allocate",
    "backfill",
    "enqueue",
    "gangpreempt",
    "gangreclaim",
    "preempt",
    "reclaim",
    "shuffle",
]
