"""Cdp plugin (cool-down protection): a pod that just started is not a victim yet.

Volcano's counterpart: ``pkg/scheduler/plugins/cdp``. Elastic jobs' pods may be preempted and
come back repeatedly; a pod labelled (or annotated) ``volcano.sh/cooldown-time`` with a Go
duration is kept out of preempt's and reclaim's victims while it is Running and its
``PodScheduled: "True"`` condition turned less than that long before the session's clock
(``ssn.now``, never the wall clock). The label is read before the annotation; an unparsable
duration protects nothing. Hooks ``enablePreemptable`` and ``enableReclaimable``; no arguments.
"""

from __future__ import annotations

import functools
from datetime import datetime, timedelta

from apis.durations import parse_duration
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import TaskStatus
from scheduler.engine.framework import Plugin, Session, register_plugin

__all__ = ["COOLDOWN_TIME_KEY", "CooldownProtectionPlugin", "cooldown_time"]

COOLDOWN_TIME_KEY = "volcano.sh/cooldown-time"


def cooldown_time(task: TaskInfo) -> timedelta | None:
    """Return the pod's cool-down (label first, then annotation), or None when unset or bad."""
    text = task.labels.get(COOLDOWN_TIME_KEY)
    if text is None:
        text = task.annotations.get(COOLDOWN_TIME_KEY)
    if text is None:
        return None
    return _cooldown(text)


@functools.lru_cache(maxsize=256)
def _cooldown(text: str) -> timedelta | None:
    """Parse a cool-down once: the filter asks for every candidate of every node it is shown."""
    try:
        return timedelta(seconds=parse_duration(text))
    except ValueError:
        return None


def cooling_down(task: TaskInfo, now: datetime) -> bool:
    """Return True while a Running pod is inside its cool-down after being scheduled."""
    if task.status != TaskStatus.RUNNING or task.scheduled_at is None:
        return False
    cooldown = cooldown_time(task)
    return cooldown is not None and task.scheduled_at + cooldown > now


@register_plugin
class CooldownProtectionPlugin(Plugin):
    """Removes pods still cooling down from preempt's and reclaim's victims."""

    name = "cdp"
    static_victims = True  # budgets/cool-downs/namespaces of the candidates only

    def on_session_open(self, ssn: Session) -> None:
        """Register the same filter for preemption and reclaim."""
        now = ssn.now

        def victims(_evictor: TaskInfo, candidates: list[TaskInfo]) -> list[TaskInfo]:
            return [t for t in candidates if not cooling_down(t, now)]

        ssn.add_preemptable_fn(self.name, victims)
        ssn.add_reclaimable_fn(self.name, victims)
