"""Kubernetes label selectors, node selector terms, tolerations and affinity terms, parsed once.

Volcano's counterpart: the kube-scheduler helpers its predicates and nodeorder plugins call
(``k8s.io/component-helpers/scheduling/corev1``, ``apimachinery/pkg/labels``). A pod's
``spec.affinity`` arrives as the manifest's mapping; ``parse_*`` turns it into frozen, hashable
values so the plugins can key caches on them and match thousands of nodes or pods cheaply.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from scheduler.engine.api.node_info import NodeInfo, Taint
from scheduler.engine.api.task_info import TaskInfo, TaskTemplate, Toleration

__all__ = [
    "AffinityTerm",
    "LabelSelector",
    "NodeConstraintKeys",
    "NodeSelectorTerm",
    "WeightedTerm",
    "first_untolerated",
    "node_affinity_terms",
    "node_matches_selector",
    "pod_affinity_terms",
    "preferred_node_terms",
    "preferred_pod_terms",
    "taint_groups",
    "tolerates",
]

REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"

Requirement = tuple[str, str, tuple[str, ...]]  # (key, operator, values)


def _requirements(raw: object) -> tuple[Requirement, ...]:
    if not isinstance(raw, Sequence):
        return ()
    out = []
    for expr in raw:
        if isinstance(expr, Mapping):
            values = expr.get("values") or ()
            key, operator = str(expr.get("key", "")), str(expr.get("operator", ""))
            out.append((key, operator, tuple(str(v) for v in values)))
    return tuple(out)


def _matches(req: Requirement, labels: Mapping[str, str]) -> bool:
    """Return True when ``labels`` satisfy one requirement (any operator kube allows)."""
    key, op, values = req
    present = key in labels
    if op == "In":
        return present and labels[key] in values
    if op == "NotIn":
        return not present or labels[key] not in values
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    if op in ("Gt", "Lt") and present and len(values) == 1:
        try:
            have, bound = int(labels[key]), int(values[0])
        except ValueError:
            return False
        return have > bound if op == "Gt" else have < bound
    return False


@dataclass(slots=True, frozen=True)
class LabelSelector:
    """A ``metav1.LabelSelector``; empty matches everything (a missing selector is ``None``)."""

    match_labels: tuple[tuple[str, str], ...] = ()
    expressions: tuple[Requirement, ...] = ()

    @classmethod
    def parse(cls, raw: object) -> LabelSelector | None:
        """Return the selector ``raw`` describes, or None when it is absent."""
        if not isinstance(raw, Mapping):
            return None
        labels = raw.get("matchLabels") or {}
        pairs = tuple(sorted((str(k), str(v)) for k, v in dict(labels).items()))
        return cls(pairs, _requirements(raw.get("matchExpressions")))

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Return True when ``labels`` satisfy every label and expression."""
        for key, value in self.match_labels:
            if labels.get(key) != value:
                return False
        return all(_matches(req, labels) for req in self.expressions)


@dataclass(slots=True, frozen=True)
class NodeSelectorTerm:
    """One ``nodeSelectorTerm``: its expressions and ``matchFields`` are ANDed."""

    expressions: tuple[Requirement, ...] = ()
    fields: tuple[Requirement, ...] = ()

    def matches(self, node: NodeInfo) -> bool:
        """Return True when ``node`` satisfies the term (an empty term matches no node)."""
        if not self.expressions and not self.fields:
            return False
        if not all(_matches(req, node.labels) for req in self.expressions):
            return False
        return all(
            req[0] == "metadata.name" and _matches(req, {"metadata.name": node.name})
            for req in self.fields
        )


def _term(raw: object) -> NodeSelectorTerm:
    data = raw if isinstance(raw, Mapping) else {}
    return NodeSelectorTerm(
        _requirements(data.get("matchExpressions")), _requirements(data.get("matchFields"))
    )


def node_affinity_terms(affinity: Mapping[str, Any]) -> tuple[NodeSelectorTerm, ...] | None:
    """Return the required node-affinity terms (ORed), or None when there are none."""
    node_affinity = affinity.get("nodeAffinity")
    if not isinstance(node_affinity, Mapping):
        return None
    required = node_affinity.get(REQUIRED)
    if not isinstance(required, Mapping):
        return None
    return tuple(_term(t) for t in required.get("nodeSelectorTerms") or ())


def preferred_node_terms(affinity: Mapping[str, Any]) -> tuple[tuple[int, NodeSelectorTerm], ...]:
    """Return the preferred node-affinity terms as (weight, term)."""
    node_affinity = affinity.get("nodeAffinity")
    if not isinstance(node_affinity, Mapping):
        return ()
    out = []
    for item in node_affinity.get(PREFERRED) or ():
        if isinstance(item, Mapping):
            out.append((int(item.get("weight", 0)), _term(item.get("preference"))))
    return tuple(out)


def node_matches_selector(task: TaskInfo, node: NodeInfo, *, use_affinity: bool = True) -> bool:
    """Return True when ``node`` fits the pod's nodeSelector and required node affinity."""
    for key, value in task.template.node_selector.items():
        if node.labels.get(key) != value:
            return False
    if not use_affinity:
        return True
    terms = node_affinity_terms(task.template.affinity)
    return terms is None or any(term.matches(node) for term in terms)


def tolerates(toleration: Toleration, taint: Taint) -> bool:
    """Return True when one toleration tolerates one taint (kube's ToleratesTaint)."""
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    if toleration.operator == "Exists":
        return True
    return toleration.key != "" and toleration.value == taint.value


def first_untolerated(
    taints: Sequence[Taint], tolerations: Sequence[Toleration], effects: frozenset[str]
) -> Taint | None:
    """Return the first taint with an effect in ``effects`` that no toleration tolerates."""
    for taint in taints:
        if taint.effect in effects and not any(tolerates(t, taint) for t in tolerations):
            return taint
    return None


@dataclass(slots=True, frozen=True)
class AffinityTerm:
    """A pod (anti-)affinity term with its namespaces resolved (None: every namespace)."""

    selector: LabelSelector | None
    namespaces: frozenset[str] | None
    topology_key: str

    def matches_pod(self, namespace: str, labels: Mapping[str, str]) -> bool:
        """Return True when a pod in ``namespace`` with ``labels`` is selected by the term."""
        if self.selector is None:
            return False
        if self.namespaces is not None and namespace not in self.namespaces:
            return False
        return self.selector.matches(labels)


@dataclass(slots=True, frozen=True)
class WeightedTerm:
    """A preferred pod (anti-)affinity term and its weight."""

    weight: int
    term: AffinityTerm


def _affinity_term(raw: object, owner_namespace: str) -> AffinityTerm:
    data = raw if isinstance(raw, Mapping) else {}
    listed = data.get("namespaces") or ()
    ns_selector = data.get("namespaceSelector")
    namespaces: frozenset[str] | None
    if isinstance(ns_selector, Mapping) and not ns_selector:
        namespaces = None  # `namespaceSelector: {}` selects every namespace
    else:
        namespaces = frozenset(str(n) for n in listed) or frozenset({owner_namespace})
    return AffinityTerm(
        LabelSelector.parse(data.get("labelSelector")), namespaces, str(data.get("topologyKey", ""))
    )


def pod_affinity_terms(
    affinity: Mapping[str, Any], kind: str, namespace: str
) -> tuple[AffinityTerm, ...]:
    """Return the required terms of ``kind`` (``podAffinity`` or ``podAntiAffinity``)."""
    section = affinity.get(kind)
    if not isinstance(section, Mapping):
        return ()
    return tuple(_affinity_term(t, namespace) for t in section.get(REQUIRED) or ())


def preferred_pod_terms(
    affinity: Mapping[str, Any], kind: str, namespace: str
) -> tuple[WeightedTerm, ...]:
    """Return the preferred terms of ``kind`` as weighted terms."""
    section = affinity.get(kind)
    if not isinstance(section, Mapping):
        return ()
    out = []
    for item in section.get(PREFERRED) or ():
        if isinstance(item, Mapping):
            term = _affinity_term(item.get("podAffinityTerm"), namespace)
            out.append(WeightedTerm(int(item.get("weight", 0)), term))
    return tuple(out)


class NodeConstraintKeys:
    """Per-session memo: a template's node-side constraints (selector, node affinity, tolerations).

    Pods of different jobs differ in labels but usually not in these, so answers that depend
    only on them (node affinity, taints) are computed once per distinct key, not per template.
    """

    __slots__ = ("_by_id",)

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[TaskTemplate, str]] = {}

    def key(self, template: TaskTemplate) -> str:
        """Return the canonical text of ``template``'s node-side constraints."""
        found = self._by_id.get(id(template))
        if found is not None and found[0] is template:
            return found[1]
        if not template.node_selector and not template.tolerations and not template.affinity:
            text = ""  # the common case: no node-side constraint at all
            self._by_id[id(template)] = (template, text)
            return text
        text = json.dumps(
            [
                template.node_selector,
                template.affinity.get("nodeAffinity"),
                [(t.key, t.operator, t.value, t.effect) for t in template.tolerations],
            ],
            sort_keys=True,
            default=str,
        )
        self._by_id[id(template)] = (template, text)  # holding the template keeps its id unique
        return text


def taint_groups(
    nodes: Sequence[NodeInfo],
) -> list[tuple[tuple[Taint, ...], npt.NDArray[np.int64]]]:
    """Return each distinct non-empty taint list with the rows of the nodes that carry it."""
    groups: dict[tuple[Taint, ...], list[int]] = {}
    for row, node in enumerate(nodes):
        if node.taints:
            groups.setdefault(node.taints, []).append(row)
    return [(taints, np.array(rows, dtype=np.int64)) for taints, rows in groups.items()]
