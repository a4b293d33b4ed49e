"""Filters that depend on other pods: inter-pod (anti-)affinity and pod topology spread.

Volcano's counterpart: kube-scheduler's ``InterPodAffinity`` and ``PodTopologySpread`` filter
plugins as Volcano's predicates plugin runs them. Each check answers for many node rows at once
from the ``PodIndex`` counts:

- existing pods' required anti-affinity: a node in the domain of a pod whose anti-affinity term
  selects the incoming pod is refused ("didn't satisfy existing pods anti-affinity rules");
- the pod's required anti-affinity: refused where its domain holds a selected pod;
- the pod's required affinity: every term needs a selected pod in the node's domain; when no pod
  anywhere matches and the pod matches its own terms, any node carrying the topology keys will do
  (the first pod of a group with affinity to itself);
- topology spread (``whenUnsatisfiable: DoNotSchedule``): count the selected pods of the pod's
  namespace per domain over the nodes the pod's node affinity admits; refuse where
  ``count + self - min > maxSkew``; a node lacking the topology key is refused as unresolvable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import FitCode, PredicateStatus
from scheduler.engine.plugins.predicates.pod_index import Matcher, PodIndex
from scheduler.engine.plugins.predicates.selectors import (
    AffinityTerm,
    LabelSelector,
    pod_affinity_terms,
)

__all__ = [
    "AFFINITY",
    "ANTI_AFFINITY",
    "EXISTING_ANTI_AFFINITY",
    "SPREAD",
    "SPREAD_MISSING_LABEL",
    "PodConstraints",
    "SpreadConstraint",
    "affinity_ok",
    "anti_affinity_ok",
    "existing_anti_affinity_ok",
    "spread_checks",
]

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]

EXISTING_ANTI_AFFINITY = PredicateStatus(
    "node(s) didn't satisfy existing pods anti-affinity rules", FitCode.UNSCHEDULABLE, "predicates"
)
ANTI_AFFINITY = PredicateStatus(
    "node(s) didn't match pod anti-affinity rules", FitCode.UNSCHEDULABLE, "predicates"
)
AFFINITY = PredicateStatus(
    "node(s) didn't match pod affinity rules",
    FitCode.UNSCHEDULABLE_AND_UNRESOLVABLE,
    "predicates",
)
SPREAD = PredicateStatus(
    "node(s) didn't match pod topology spread constraints", FitCode.UNSCHEDULABLE, "predicates"
)
SPREAD_MISSING_LABEL = PredicateStatus(
    "node(s) didn't match pod topology spread constraints (missing required label)",
    FitCode.UNSCHEDULABLE_AND_UNRESOLVABLE,
    "predicates",
)


@dataclass(slots=True, frozen=True)
class SpreadConstraint:
    """One ``topologySpreadConstraints`` entry."""

    max_skew: int
    topology_key: str
    hard: bool  # whenUnsatisfiable: DoNotSchedule
    selector: LabelSelector | None
    min_domains: int

    @classmethod
    def parse(cls, raw: dict[str, Any]) -> SpreadConstraint:
        """Return the constraint a manifest entry describes."""
        return cls(
            max_skew=int(raw.get("maxSkew", 1)),
            topology_key=str(raw.get("topologyKey", "")),
            hard=str(raw.get("whenUnsatisfiable", "DoNotSchedule")) == "DoNotSchedule",
            selector=LabelSelector.parse(raw.get("labelSelector")),
            min_domains=int(raw.get("minDomains") or 0),
        )


@dataclass(slots=True, frozen=True)
class PodConstraints:
    """The inter-pod constraints of one template, parsed once."""

    affinity: tuple[AffinityTerm, ...]
    anti_affinity: tuple[AffinityTerm, ...]
    spread: tuple[SpreadConstraint, ...]

    @classmethod
    def of(cls, task: TaskInfo) -> PodConstraints:
        """Return the constraints of ``task``'s template."""
        template = task.template
        return cls(
            pod_affinity_terms(template.affinity, "podAffinity", task.namespace),
            pod_affinity_terms(template.affinity, "podAntiAffinity", task.namespace),
            tuple(SpreadConstraint.parse(dict(c)) for c in template.topology_spread_constraints),
        )


def _at(values: npt.NDArray[Any], codes: IntArray) -> npt.NDArray[Any]:
    """Return ``values[codes]`` with code -1 (missing label) read as index 0 (callers mask it)."""
    return values[np.where(codes >= 0, codes, 0)] if len(values) else np.zeros(len(codes))


def existing_anti_affinity_ok(index: PodIndex, task: TaskInfo, rows: IntArray) -> BoolArray:
    """Return False where a placed pod's anti-affinity term selects ``task`` in that domain."""
    ok = np.ones(len(rows), dtype=np.bool_)
    for holder in index.holders.values():
        for term in holder.terms:
            if term.matches_pod(task.namespace, task.labels):
                codes, _ = index.domains(term.topology_key)
                code = codes[holder.row]
                if code >= 0:
                    ok &= codes[rows] != code
    return ok


def anti_affinity_ok(index: PodIndex, terms: tuple[AffinityTerm, ...], rows: IntArray) -> BoolArray:
    """Return False where the domain already holds a pod one of ``terms`` selects."""
    ok = np.ones(len(rows), dtype=np.bool_)
    for term in terms:
        per_domain = index.domain_counts(Matcher(term.selector, term.namespaces), term.topology_key)
        codes = index.domains(term.topology_key)[0][rows]
        ok &= (codes < 0) | (_at(per_domain, codes) == 0)
    return ok


def affinity_ok(
    index: PodIndex, task: TaskInfo, terms: tuple[AffinityTerm, ...], rows: IntArray
) -> BoolArray:
    """Return True where every term finds a selected pod in the node's domain."""
    ok = np.ones(len(rows), dtype=np.bool_)
    has_keys = np.ones(len(rows), dtype=np.bool_)
    anywhere = False
    for term in terms:
        matcher = Matcher(term.selector, term.namespaces)
        per_domain = index.domain_counts(matcher, term.topology_key)
        anywhere = anywhere or index.counts(matcher).total > 0
        codes = index.domains(term.topology_key)[0][rows]
        has_keys &= codes >= 0
        ok &= (codes >= 0) & (_at(per_domain, codes) > 0)
    if not anywhere and all(t.matches_pod(task.namespace, task.labels) for t in terms):
        return has_keys
    return ok


def spread_checks(
    index: PodIndex,
    task: TaskInfo,
    constraints: tuple[SpreadConstraint, ...],
    eligible: BoolArray,
    rows: IntArray,
) -> tuple[BoolArray, BoolArray]:
    """Return (rows carrying every hard topology key, rows within every hard maxSkew)."""
    hard = [c for c in constraints if c.hard]
    labelled = np.ones(len(rows), dtype=np.bool_)
    within = np.ones(len(rows), dtype=np.bool_)
    if not hard:
        return labelled, within
    # Domains are counted over nodes the pod's node affinity admits that carry every hard key.
    counted = eligible.copy()
    for c in hard:
        counted &= index.domains(c.topology_key)[0] >= 0
    namespace = frozenset({task.namespace})
    for c in hard:
        codes_all, values = index.domains(c.topology_key)
        matcher = Matcher(c.selector, namespace)
        index.counts(matcher, key=c.topology_key, spread=True)
        per_domain = index.domain_counts(matcher, c.topology_key, counted)
        present = np.bincount(codes_all[counted], minlength=len(values)) > 0
        minimum = float(per_domain[present].min()) if present.any() else 0.0
        if c.min_domains and int(present.sum()) < c.min_domains:
            minimum = 0.0
        self_match = 1 if matcher.matches(task) else 0
        codes = codes_all[rows]
        labelled &= codes >= 0
        within &= (codes < 0) | (_at(per_domain, codes) + self_match - minimum <= c.max_skew)
    return labelled, within
