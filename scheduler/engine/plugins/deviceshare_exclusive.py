"""deviceshare's GPU exclusivity rules (``deviceshare.GPUExclusiveRules``), on vGPU nodes.

Volcano's counterpart: ``pkg/scheduler/plugins/deviceshare/gpuexclusive.go``. A rule is a map of
pod labels; a pod matches it when it has every label with the same value. Per node, each rule owns
the cards its matching pods hold (from the vGPU booking, else from their ``vgpu-ids-new`` by exact
UUID). A pod matching rules may not take a card owned by any rule it matches (those cards have no
free slot for it); the cards it is given join its rules. Pods matching no rule are not restricted.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from apis.errors import ConfError
from scheduler.engine.api.devices.vgpu import ASSIGNED_IDS, VgpuDevices, decode_pod_devices
from scheduler.engine.api.task_info import TaskInfo

__all__ = ["ExclusiveCards", "check_rules", "matching_rules", "read_rules"]


def check_rules(value: object, field: str) -> str:
    """Return the rules as JSON text: a list of maps, keeping string values only.

    As Volcano, values that are not strings are dropped and maps left empty are ignored; a value
    that is not a list is refused here (Volcano would ignore it silently).
    """
    if isinstance(value, str) and not value:
        return "[]"
    if not isinstance(value, list):
        raise ConfError(field, "expected a list of label maps ({label: value})")
    rules: list[dict[str, str]] = []
    for item in value:
        if isinstance(item, Mapping):
            labels = {
                str(k): v for k, v in item.items() if isinstance(k, str) and isinstance(v, str)
            }
            if labels:
                rules.append(labels)
    return json.dumps(rules, sort_keys=True)


def read_rules(text: str) -> list[dict[str, str]]:
    """Return the rules ``check_rules`` wrote."""
    if not text:
        return []
    loaded = json.loads(text)
    return [dict(rule) for rule in loaded] if isinstance(loaded, list) else []


def matching_rules(labels: Mapping[str, str], rules: list[dict[str, str]]) -> tuple[int, ...]:
    """Return the indexes of the rules whose every label the pod carries with the same value."""
    return tuple(
        i for i, rule in enumerate(rules) if all(labels.get(k) == v for k, v in rule.items())
    )


class ExclusiveCards:
    """One vGPU node's rule -> cards and pod -> rules bookkeeping."""

    def __init__(self, devices: VgpuDevices, rules: list[dict[str, str]]) -> None:
        self.devices = devices
        self.rules = rules
        self.rule_cards: dict[int, set[int]] = {}
        self.pod_rules: dict[str, tuple[int, ...]] = {}

    def track_existing(self, tasks: list[TaskInfo]) -> None:
        """Give each rule the cards held by the node's pods that match it (session open)."""
        by_uuid = {card.uuid: pos for pos, card in enumerate(self.devices.cards)}
        for task in tasks:
            matched = matching_rules(task.labels, self.rules)
            if not matched:
                continue
            self.pod_rules[task.uid] = matched
            held = self._held(task.uid)
            if not held:
                text = task.annotations.get(ASSIGNED_IDS, "")
                held = {
                    by_uuid[use.uuid]
                    for container in decode_pod_devices(text)
                    for use in container
                    if use.uuid in by_uuid
                }
            self._add(matched, held)

    def reserved(self, labels: Mapping[str, str]) -> frozenset[int]:
        """Return the card positions a pod with ``labels`` may not take."""
        cards: set[int] = set()
        for rule in matching_rules(labels, self.rules):
            cards |= self.rule_cards.get(rule, set())
        return frozenset(cards)

    def allocated(self, task: TaskInfo) -> None:
        """Add the cards just booked for ``task`` to the rules it matches."""
        matched = matching_rules(task.labels, self.rules)
        if matched:
            self.pod_rules[task.uid] = matched
            self._add(matched, self._held(task.uid))

    def released(self, uid: str) -> None:
        """Drop a pod's cards from its rules unless another tracked pod still holds them.

        Call after the pod's booking is gone from the cards.
        """
        matched = self.pod_rules.pop(uid, ())
        for rule in matched:
            cards = self.rule_cards.get(rule, set())
            for pos in list(cards):
                users = self.devices.cards[pos].pods
                if not any(other != uid and other in self.pod_rules for other in users):
                    cards.discard(pos)
            if not cards:
                self.rule_cards.pop(rule, None)

    def _held(self, uid: str) -> set[int]:
        return {pos for pos, card in enumerate(self.devices.cards) if uid in card.pods}

    def _add(self, rules: tuple[int, ...], cards: set[int]) -> None:
        for rule in rules:
            if cards:
                self.rule_cards.setdefault(rule, set()).update(cards)
