"""Preempt's topology-aware mode: compare candidate nodes by their victims, kube-scheduler style.

Volcano's counterpart: the ``enableTopologyAwarePreemption`` path of
``pkg/scheduler/actions/preempt`` (after kube-scheduler's default preemption). Instead of taking
the first node (by score) where evictions make room, a number of candidate nodes is examined; on
each, victims are removed in victim order until the preemptor fits (queue quota, future idle,
predicates), and then given back one by one in reverse order while the preemptor still fits, so
only the victims really needed remain. The node whose victims hurt least wins: lowest highest
victim priority, then lowest sum of priorities, then fewest victims, then the latest earliest
start. Volcano simulates on cloned node state; here the tries are statements that are discarded,
which leaves the session exactly as it was. Volcano starts its window of nodes at a random
offset; this engine starts at the first node by name, so a session stays repeatable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.util.eviction import EvictionContext, victim_order

if TYPE_CHECKING:
    from scheduler.engine.framework.arguments import Arguments
    from scheduler.engine.framework.session import Session
    from scheduler.engine.framework.statement import Statement

__all__ = ["CandidateWindow", "preempt_on_best_candidate"]


@dataclass(slots=True, frozen=True)
class CandidateWindow:
    """How many candidate nodes to examine (Volcano's three arguments)."""

    percentage: int = 10
    minimum: int = 1
    maximum: int = 100

    @classmethod
    def of(cls, arguments: Arguments) -> CandidateWindow:
        """Return the window the preempt action's arguments describe."""
        return cls(
            arguments.get_int("minCandidateNodesPercentage"),
            arguments.get_int("minCandidateNodesAbsolute"),
            arguments.get_int("maxCandidateNodesAbsolute"),
        )

    def size(self, nodes: int) -> int:
        """Return how many candidates to collect in a cluster of ``nodes`` nodes."""
        wanted = max(nodes * self.percentage // 100, self.minimum)
        return max(min(wanted, self.maximum, nodes), 1)


@dataclass(slots=True)
class _Candidate:
    row: int
    victims: list[TaskInfo]
    found: int

    def cost(self) -> tuple[int, int, int, float, int]:
        priorities = [v.priority for v in self.victims]
        starts = [v.creation_timestamp for v in self.victims if v.creation_timestamp is not None]
        earliest = min(starts).timestamp() if starts else float("-inf")
        return (max(priorities), sum(priorities), len(priorities), -earliest, self.found)


def _needed_victims(
    ssn: Session,
    ctx: EvictionContext,
    task: TaskInfo,
    row: int,
    victims: list[TaskInfo],
    fits: Callable[[int], bool],
    reason: str,
) -> list[TaskInfo]:
    """Return the fewest victims (removed in order, then reprieved) that let ``task`` fit.

    Runs with the session simulating: each trial eviction is also announced through the
    SimulateRemoveTask hooks and each undone one through SimulateAddTask, the only way
    inter-pod affinity state learns of them (as in Volcano, only when predicates has
    ``enablePreemptable`` or ``enabledAllocatable``).
    """
    node = ssn.node_list[row]
    state: dict[str, Any] = {}

    def remove(trial: Statement, victim: TaskInfo) -> None:
        trial.evict(victim, reason, preemptor=task.uid)
        ssn.simulate_remove_task(state, task, victim, node)

    def undo(trial: Statement, removed: list[TaskInfo]) -> None:
        ctx.discard(trial)
        for victim in reversed(removed):
            ssn.simulate_add_task(state, task, victim, node)

    ssn.simulating = True
    try:
        trial = ssn.statement()
        removed: list[TaskInfo] = []
        for victim in victim_order(ssn, victims, task):
            if fits(row):
                break
            remove(trial, victim)
            removed.append(victim)
        enough = fits(row)
        undo(trial, removed)
        if not enough:
            return []
        kept = list(removed)
        for victim in reversed(removed):
            without = [v for v in kept if v is not victim]
            trial = ssn.statement()
            for other in without:
                remove(trial, other)
            if fits(row):
                kept = without
            undo(trial, without)
        return kept
    finally:
        ssn.simulating = False


def preempt_on_best_candidate(
    ssn: Session,
    ctx: EvictionContext,
    stmt: Statement,
    task: TaskInfo,
    rows: list[int],
    victims_on: Callable[[int], list[TaskInfo]],
    fits: Callable[[int], bool],
    window: CandidateWindow,
    reason: str,
) -> bool:
    """Evict the least harmful victim set among the candidate nodes and pipeline ``task``."""
    wanted = window.size(len(ssn.node_list))
    found: list[_Candidate] = []
    for row in rows:
        victims = victims_on(row)
        if not victims:
            continue
        needed = _needed_victims(ssn, ctx, task, row, victims, fits, reason)
        if needed:
            found.append(_Candidate(row, needed, len(found)))
            if len(found) >= wanted:
                break
    if not found:
        return False
    best = min(found, key=_Candidate.cost)
    on_node = ssn.statement()
    for victim in best.victims:
        on_node.evict(victim, reason, preemptor=task.uid)
    if not fits(best.row):
        ctx.discard(on_node)
        return False
    on_node.pipeline(task, ssn.node_list[best.row])
    ctx.touched(on_node)
    stmt.merge(on_node)
    return True
