"""What a gang-aware eviction asks the plugins' UnifiedEvictable hooks about.

Volcano's counterpart: ``api.EvictionContext`` and ``api.EvictionKind`` (``pkg/scheduler/api``).
gangpreempt and gangreclaim hand one context and the candidate pods of a domain to
``Session.unified_evictable``; each plugin answers ``(allowed pods, vote)``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from scheduler.engine.api.job_info import JobInfo

__all__ = ["EvictionKind", "GangEvictionContext"]


class EvictionKind(enum.StrEnum):
    """Which action evicts (plugins filter preemption and reclaim differently)."""

    GANG_PREEMPT = "gangpreempt"
    GANG_RECLAIM = "gangreclaim"


@dataclass(slots=True, frozen=True)
class GangEvictionContext:
    """Who evicts: the action, the starving job and the domain its victims come from."""

    kind: EvictionKind
    job: JobInfo
    hyper_node: str
