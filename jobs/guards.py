"""What protects a job's pods from eviction, for its page and its queue's: budgets, cool-downs.

Two guards keep the scheduler's preempt, reclaim and shuffle off a running pod:

- a **PodDisruptionBudget** that selects it (the ``pdb`` plugin; ``kubectl drain`` and the
  eviction API obey it too): with ``status.disruptionsAllowed`` 0 none of its pods may go;
- a **cool-down** (the ``cdp`` plugin): a pod labelled or annotated
  ``volcano.sh/cooldown-time`` (a Go duration, ``10m``) is no victim for that long after its
  ``PodScheduled`` condition turned True. The plugin compares with the session's "now" (the
  wall clock, as tdm's windows), so the duration is not scaled by the simulation speed here
  either: the page says what the scheduler does.

Read from rows the page already has (the job's pods) and one query per kind: the budgets of
the namespaces concerned. The plugins' own decisions are the engine's; this only says which
guards apply now, so a reader knows why a pod was not taken.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from apis.durations import parse_duration
from console.namespaces import restrict
from core.disruption import budget_selects
from core.models import Pod, PodDisruptionBudget, PodPhase
from queues.models import PodGroup
from queues.why import quota_refusals

__all__ = [
    "COOLDOWN_TIME_KEY",
    "BudgetNote",
    "CoolDown",
    "JobGuards",
    "QueueGuards",
    "cooldown_until",
    "job_guards",
    "queue_guards",
]

COOLDOWN_TIME_KEY = "volcano.sh/cooldown-time"  # the cdp plugin's label (or annotation)


def cooldown_until(pod: Any) -> dt.datetime | None:
    """Return when ``pod``'s cool-down ends (None: it has none, or is not Running).

    Label first, then annotation, as the cdp plugin reads them; a duration that does not parse
    is no cool-down (the plugin ignores it too).
    """
    if pod.phase != PodPhase.RUNNING:
        return None
    text = (pod.labels or {}).get(COOLDOWN_TIME_KEY)
    if text is None:
        text = (pod.annotations or {}).get(COOLDOWN_TIME_KEY)
    if text is None:
        return None
    try:
        seconds = parse_duration(str(text))
    except ValueError:
        return None
    for condition in pod.conditions or ():
        if condition.get("type") == "PodScheduled" and condition.get("status") == "True":
            stamp = str(condition.get("lastTransitionTime") or "").replace("Z", "+00:00")
            try:
                scheduled = dt.datetime.fromisoformat(stamp)
            except ValueError:
                return None
            if scheduled.tzinfo is None:
                scheduled = scheduled.replace(tzinfo=dt.UTC)
            return scheduled + dt.timedelta(seconds=seconds)
    return None


@dataclass(frozen=True, slots=True)
class BudgetNote:
    """A PodDisruptionBudget that selects some of the job's pods."""

    name: str
    allowed: int  # status.disruptionsAllowed
    pods: int  # how many of the job's pods it selects

    @property
    def protecting(self) -> bool:
        """Return whether no pod it selects may be evicted now."""
        return self.allowed <= 0


@dataclass(frozen=True, slots=True)
class CoolDown:
    """A pod inside its cool-down: no victim until ``until``."""

    pod: str
    until: dt.datetime


@dataclass(slots=True)
class JobGuards:
    """The guards on one job's pods."""

    budgets: list[BudgetNote] = field(default_factory=list)
    cooling: list[CoolDown] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.budgets or self.cooling)


def _budgets(namespaces: Iterable[str]) -> list[PodDisruptionBudget]:
    return list(
        PodDisruptionBudget.objects.filter(
            namespace__in=sorted(set(namespaces)), deletion_timestamp__isnull=True
        )
        .only("id", "namespace", "name", "spec", "disruptions_allowed")
        .order_by("namespace", "name")
    )


def job_guards(namespace: str, pods: Sequence[Any], now: dt.datetime) -> JobGuards:
    """Return the budgets that select ``pods`` (one query) and the pods cooling down now."""
    guards = JobGuards()
    live = [p for p in pods if p.phase in (PodPhase.PENDING, PodPhase.RUNNING)]
    if not live:
        return guards
    for budget in _budgets([namespace]):
        count = sum(1 for p in live if budget_selects(budget, p.labels or {}))
        if count:
            guards.budgets.append(BudgetNote(budget.name, budget.disruptions_allowed, count))
    for pod in live:
        until = cooldown_until(pod)
        if until is not None and until > now:
            guards.cooling.append(CoolDown(pod.name, until))
    guards.cooling.sort(key=lambda c: (c.until, c.pod))
    return guards


@dataclass(slots=True)
class QueueGuards:
    """What a queue's page says of the guards: jobs held by a quota, pods protected."""

    quota_held: list[tuple[str, str]] = field(default_factory=list)  # (namespace, PodGroup)
    budget_protected: int = 0  # running pods a budget with no disruption left selects
    cooling: int = 0  # running pods inside their cool-down

    def __bool__(self) -> bool:
        return bool(self.quota_held or self.budget_protected or self.cooling)


def queue_guards(user: Any, queue: str, now: dt.datetime) -> QueueGuards:
    """Return the guards on queue ``queue``'s jobs that ``user`` may read.

    Four queries whatever the size of the queue: its pending PodGroups, their refusal events,
    its running pods, the budgets of those pods' namespaces.
    """
    guards = QueueGuards()
    pending = restrict(PodGroup.objects.filter(queue=queue, phase__in=("", "Pending")), user)
    keys = list(pending.values_list("namespace", "name")[:2000])
    guards.quota_held = sorted(quota_refusals(keys))
    running = list(
        restrict(Pod.objects.filter(job__queue=queue, phase=PodPhase.RUNNING), user).only(
            "id", "namespace", "name", "phase", "labels", "annotations", "conditions"
        )[:5000]
    )
    if not running:
        return guards
    closed = [b for b in _budgets(p.namespace for p in running) if b.disruptions_allowed <= 0]
    for pod in running:
        if any(
            b.namespace == pod.namespace and budget_selects(b, pod.labels or {}) for b in closed
        ):
            guards.budget_protected += 1
        until = cooldown_until(pod)
        if until is not None and until > now:
            guards.cooling += 1
    return guards
