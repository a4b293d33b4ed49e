"""One function per rule by which the session combines the answers of plugins across tiers.

Volcano's counterpart: the loops of ``pkg/scheduler/framework/session_plugins.go``, written once
each. Every combinator takes ``tiers``: a list (one entry per tier, in conf order) of the enabled
plugins' functions for one hook, in plugin order. ``registrars.py`` builds that list once
per hook and calls these with the hook's arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from scheduler.engine.api.types import PERMIT, REJECT

__all__ = [
    "all_pass",
    "any_true",
    "first_answer",
    "first_nonzero",
    "intersect_by_tier",
    "starving_by_tier",
    "sum_scores",
    "vote",
]

T = TypeVar("T")
Tiers = Sequence[Sequence[Callable[..., Any]]]


def first_nonzero(tiers: Tiers, left: object, right: object) -> int:
    """Return the first non-zero comparison (negative = left first); 0 when all abstain."""
    for fns in tiers:
        for fn in fns:
            result: int = fn(left, right)
            if result:
                return result
    return 0


def all_pass(tiers: Tiers, *args: object) -> bool:
    """Return True when every function says yes (JobReady, Allocatable, Preemptive)."""
    for fns in tiers:  # plain loops: called several times per placed pod
        for fn in fns:
            if not fn(*args):
                return False
    return True


def any_true(tiers: Tiers, *args: object) -> bool:
    """Return True when any function says yes (Overused)."""
    for fns in tiers:
        for fn in fns:
            if fn(*args):
                return True
    return False


def vote(tiers: Tiers, *args: object) -> bool:
    """Return a vote's outcome (JobPipelined, JobEnqueueable).

    A reject anywhere ends it with False; a tier in which somebody permitted ends it with True;
    nobody permitting at all is True.
    """
    for fns in tiers:
        permitted = False
        for fn in fns:
            answer: int = fn(*args)
            if answer <= REJECT:
                return False
            if answer >= PERMIT:
                permitted = True
        if permitted:
            return True
    return True


def starving_by_tier(tiers: Tiers, *args: object) -> bool:
    """Return the JobStarving answer: the first tier with a function decides (all must agree).

    No function at all is False (preempt and reclaim then do nothing).
    """
    for fns in tiers:
        if fns:
            return all(fn(*args) for fn in fns)
    return False


def intersect_by_tier(tiers: Tiers, preemptor: object, candidates: Sequence[T]) -> list[T]:
    """Return victims: intersect within a tier, the first tier left with victims decides.

    A function returns ``None`` to abstain; an empty list drops what the tier had gathered
    and skips the rest of the tier, so the next tier decides afresh. Within a tier, an
    intersection that comes out empty counts as nothing gathered yet: the next function's
    answer starts the list again. Order is the gathering answer's. This is Volcano's rule since
    1.11 (``Session.Preemptable`` / ``Reclaimable`` test a nil list, not an "initialised" flag):
    a budget (pdb) or cool-down (cdp) that refuses every victim in one tier leaves the choice
    to the plugins of the next.
    """
    victims: list[T] | None = None
    for fns in tiers:
        for fn in fns:
            answer: list[T] | None = fn(preemptor, candidates)
            if answer is None:
                continue
            if not answer:
                victims = None
                break
            if victims is None:
                victims = list(answer)
            else:
                keep = {id(x) for x in answer}
                victims = [v for v in victims if id(v) in keep] or None
        if victims is not None:
            return victims
    return []


def first_answer(tiers: Tiers, *args: object) -> Any:
    """Return the first non-None answer (JobValid, Predicate, BestNode, PrePredicate)."""
    for fns in tiers:
        for fn in fns:
            answer = fn(*args)
            if answer is not None:
                return answer
    return None


def sum_scores(tiers: Tiers, *args: object) -> float:
    """Return the sum of every function's score (NodeOrder)."""
    return float(sum(fn(*args) for fns in tiers for fn in fns))
