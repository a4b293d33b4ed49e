"""Conformance plugin: never evict critical system pods.

Volcano's counterpart: ``pkg/scheduler/plugins/conformance``.
"""

from __future__ import annotations

from scheduler.engine.api.eviction import GangEvictionContext
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import PERMIT
from scheduler.engine.framework import Plugin, Session, register_plugin

__all__ = ["ConformancePlugin"]

_CRITICAL_CLASSES = frozenset({"system-cluster-critical", "system-node-critical"})
_SYSTEM_NAMESPACE = "kube-system"


def _not_critical(candidates: list[TaskInfo]) -> list[TaskInfo]:
    """Return the candidates that are neither critical-class pods nor in kube-system."""
    return [
        t
        for t in candidates
        if t.priority_class_name not in _CRITICAL_CLASSES and t.namespace != _SYSTEM_NAMESPACE
    ]


def _evictable(_preemptor: TaskInfo, candidates: list[TaskInfo]) -> list[TaskInfo]:
    """The filter for preempt and reclaim (whoever the evictor is)."""
    return _not_critical(candidates)


def _gang_evictable(
    _ctx: GangEvictionContext, candidates: list[TaskInfo]
) -> tuple[list[TaskInfo], int]:
    """The same filter for gangpreempt and gangreclaim (UnifiedEvictable), always voting."""
    return _not_critical(candidates), PERMIT


@register_plugin
class ConformancePlugin(Plugin):
    """Removes critical pods from every victim list (preempt and reclaim)."""

    name = "conformance"
    static_victims = True  # budgets/cool-downs/namespaces of the candidates only

    def on_session_open(self, ssn: Session) -> None:
        """Register the preemptable and reclaimable filters."""
        ssn.add_preemptable_fn(self.name, _evictable)
        ssn.add_reclaimable_fn(self.name, _evictable)
        ssn.add_unified_evictable_fn(self.name, _gang_evictable)
