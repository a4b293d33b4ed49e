"""What the nodegroup plugin knows about each queue: its node-group affinity and its limits.

Volcano's counterpart: ``queueAttr``, ``queueGroupAffinity`` and ``parseNodeGroupResourceLimits``
in ``pkg/scheduler/plugins/nodegroup/nodegroup.go``. A queue's ``spec.affinity`` names node groups
(nodes labelled ``volcano.sh/nodegroup-name``) its pods must, should, must not or should not use;
its annotation ``volcano.sh/nodegroup-resource-limits`` caps, per node group, what its pods may
hold there (JSON ``{"group1": {"cpu": "3", "memory": "8Gi"}}``; only the listed resources are
capped; JSON Volcano cannot decode makes every node refuse the queue's pods).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from apis.errors import QuantityError
from apis.quantity import parse_quantity
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.resource import Resource

__all__ = [
    "BASE_SCORE",
    "RESOURCE_LIMITS_KEY",
    "GroupAffinity",
    "GroupLimit",
    "QueueAttr",
    "inherit_affinity",
    "parse_limits",
]

RESOURCE_LIMITS_KEY = "volcano.sh/nodegroup-resource-limits"
ROOT_QUEUE = "root"
BASE_SCORE = 100.0


@dataclass(slots=True, frozen=True)
class GroupAffinity:
    """A queue's node-group rules as sets (and the preferred list's positions)."""

    required: frozenset[str]
    preferred: frozenset[str]
    anti_required: frozenset[str]
    anti_preferred: frozenset[str]
    preferred_index: Mapping[str, int]

    @classmethod
    def of(cls, queue: QueueInfo) -> GroupAffinity | None:
        """Return the queue's rules, or None when its ``spec.affinity`` is absent."""
        affinity = queue.affinity
        if affinity is None:
            return None
        terms, anti = affinity.node_group_affinity, affinity.node_group_anti_affinity
        preferred = terms.preferred if terms is not None else ()
        return cls(
            required=frozenset(terms.required if terms is not None else ()),
            preferred=frozenset(preferred),
            anti_required=frozenset(anti.required if anti is not None else ()),
            anti_preferred=frozenset(anti.preferred if anti is not None else ()),
            preferred_index={group: i for i, group in enumerate(preferred)},
        )

    @property
    def empty(self) -> bool:
        """Return True when no rule names any group (the queue counts as without affinity)."""
        return not (self.required or self.preferred or self.anti_required or self.anti_preferred)

    def admits(self, group: str) -> bool:
        """Return True when a node of ``group`` passes (preferred anti-affinity always passes)."""
        passes = group in self.required or group in self.preferred
        if group in self.anti_required:
            passes = False
        if group in self.anti_preferred:
            passes = True
        return passes

    def score(self, group: str, preferred_order: bool) -> float:
        """Return +100 required, +50 preferred (by position with ``preferred_order``), -1 anti."""
        score = BASE_SCORE if group in self.required else 0.0
        if preferred_order:
            index = self.preferred_index.get(group)
            if index is not None:
                size = len(self.preferred_index)
                score += 0.5 * BASE_SCORE * (size - index) / size
        elif group in self.preferred:
            score += 0.5 * BASE_SCORE
        if group in self.anti_preferred:
            score = -1.0
        return score


@dataclass(slots=True, frozen=True)
class GroupLimit:
    """What a queue's pods may hold on one node group: the amounts and the names capped."""

    amounts: Resource
    names: frozenset[str]

    def exceeded(self, used: Resource) -> bool:
        """Return True when ``used`` is over the cap in a capped resource."""
        return any(used.get(name) > self.amounts.get(name) for name in self.names)


@dataclass(slots=True)
class QueueAttr:
    """One queue's rules, limits and what its pods hold per node group in this session."""

    affinity: GroupAffinity | None
    limits: dict[str, GroupLimit]
    limit_error: str = ""
    allocated: dict[str, Resource] = field(default_factory=dict)

    @classmethod
    def of(cls, queue: QueueInfo) -> QueueAttr:
        """Return the attributes read from ``queue``."""
        limits, error = parse_limits(queue.annotations.get(RESOURCE_LIMITS_KEY, ""))
        return cls(affinity=GroupAffinity.of(queue), limits=limits, limit_error=error)

    @property
    def unset(self) -> bool:
        """Return True when the queue has no node-group rule at all."""
        return self.affinity is None or self.affinity.empty


def parse_limits(raw: str) -> tuple[dict[str, GroupLimit], str]:
    """Return the per-group limits of the annotation, or an error text when Go cannot read it."""
    if not raw:
        return {}, ""
    try:
        value = json.loads(raw)
    except ValueError as exc:
        return {}, f"parse annotation {RESOURCE_LIMITS_KEY}: {exc}"
    if value is None:
        return {}, ""
    if not isinstance(value, dict):
        return {}, f"parse annotation {RESOURCE_LIMITS_KEY}: expected an object"
    limits: dict[str, GroupLimit] = {}
    for group, resources in value.items():
        if resources is None:
            resources = {}
        if not isinstance(resources, dict):
            return {}, f"parse annotation {RESOURCE_LIMITS_KEY}: {group}: expected an object"
        amounts: dict[str, int] = {}
        for name, quantity in resources.items():
            if quantity is None:
                amounts[name] = 0
                continue
            try:
                amounts[name] = parse_quantity(quantity, field=f"{group}.{name}")
            except QuantityError as exc:
                return {}, f"parse annotation {RESOURCE_LIMITS_KEY}: {exc}"
        limits[group] = GroupLimit(Resource(amounts), frozenset(amounts))
    return limits, ""


def inherit_affinity(queues: Mapping[str, QueueInfo], attrs: Mapping[str, QueueAttr]) -> None:
    """Give each queue without ``spec.affinity`` its nearest ancestor's (``enableHierarchy``).

    The parent of a queue without ``spec.parent`` is ``root``; the chain stops at ``root``, at a
    parent that is not in the session, or at a cycle.
    """
    own = {name: attr.affinity for name, attr in attrs.items()}
    for name, attr in attrs.items():
        if own[name] is not None:
            continue
        seen = {name}
        current = name
        while current != ROOT_QUEUE:
            parent = queues[current].parent or ROOT_QUEUE
            if parent in seen or parent not in queues:
                break
            seen.add(parent)
            if own.get(parent) is not None:
                attr.affinity = own[parent]
                break
            current = parent
