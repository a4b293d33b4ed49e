"""Where the pods are: per-node counts of pods matching a selector, by topology domain.

Volcano's counterpart: the pre-filter state of kube-scheduler's InterPodAffinity and
PodTopologySpread plugins, which Volcano's predicates plugin keeps in step with allocate/evict
through its event handlers. Here one ``PodIndex`` per plugin instance holds:

- ``domains(key)``: for a topology key, each node row's domain code (-1: the node lacks the label);
- one vector per *matcher* (a label selector over a set of namespaces) counting, per node row, the
  pods on that node it selects; registered the first time a template asks, by one scan of the
  pods on nodes, then updated by allocate/deallocate events;
- the *holders* of required anti-affinity (pods on nodes whose terms forbid their domain to pods
  they select), and the host ports in use per node.

Because a pod landing in a zone changes the answer for every node of that zone, the event
handler marks those rows changed (``Session.touch_nodes``), so node selection's per-template cache
recomputes them; topology spread depends on the least-loaded domain, so its users touch all rows.
Evicted (Releasing) pods no longer count, as in Volcano's plugin state.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import TaskStatus
from scheduler.engine.framework import Event, Session
from scheduler.engine.plugins.predicates.selectors import (
    AffinityTerm,
    LabelSelector,
    pod_affinity_terms,
)

__all__ = ["Matcher", "PodIndex"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclass(slots=True, frozen=True)
class Matcher:
    """Which pods are counted: a selector over namespaces (None: all namespaces)."""

    selector: LabelSelector | None
    namespaces: frozenset[str] | None

    def matches(self, task: TaskInfo) -> bool:
        """Return True when ``task`` is selected."""
        if self.selector is None:
            return False
        if self.namespaces is not None and task.namespace not in self.namespaces:
            return False
        return self.selector.matches(task.labels)


@dataclass(slots=True)
class _Counts:
    per_node: FloatArray
    total: int = 0
    keys: set[str] = field(default_factory=set)  # topology keys whose domains depend on it
    spread: bool = False  # a topology-spread user: any change moves every node's answer


@dataclass(slots=True, frozen=True)
class Holder:
    """A pod on a node whose required anti-affinity terms repel the pods they select."""

    row: int
    namespace: str
    terms: tuple[AffinityTerm, ...]


class PodIndex:
    """Pod placement facts of one session, kept current by allocate/deallocate events."""

    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn
        self.n = len(ssn.node_list)
        self._domains: dict[str, tuple[IntArray, list[str]]] = {}
        self._counts: dict[Matcher, _Counts] = {}
        self.holders: dict[str, Holder] = {}
        self.ports: dict[int, Counter[int]] = {}
        for node in ssn.node_list:
            for task in node.tasks.values():
                if task.status != TaskStatus.RELEASING:
                    self._add_static(task, node.index)

    # --- topology domains ------------------------------------------------------------------------
    def domains(self, key: str) -> tuple[IntArray, list[str]]:
        """Return (domain code per node row, -1 when missing; the domain values)."""
        found = self._domains.get(key)
        if found is None:
            values: dict[str, int] = {}
            codes = np.full(self.n, -1, dtype=np.int64)
            for row, node in enumerate(self.ssn.node_list):
                value = node.labels.get(key)
                if value is not None:
                    codes[row] = values.setdefault(value, len(values))
            found = (codes, list(values))
            self._domains[key] = found
        return found

    def same_domain(self, key: str, row: int) -> IntArray:
        """Return the rows in the same ``key`` domain as ``row`` (none when it lacks the key)."""
        codes, _ = self.domains(key)
        code = int(codes[row])
        if code < 0:
            return np.empty(0, dtype=np.int64)
        return np.flatnonzero(codes == code)

    # --- matchers --------------------------------------------------------------------------------
    def counts(self, matcher: Matcher, *, key: str = "", spread: bool = False) -> _Counts:
        """Return the per-node count of pods ``matcher`` selects (registering it on first use)."""
        found = self._counts.get(matcher)
        if found is None:
            per_node = np.zeros(self.n, dtype=np.float64)
            total = 0
            for node in self.ssn.node_list:
                for task in node.tasks.values():
                    if task.status != TaskStatus.RELEASING and matcher.matches(task):
                        per_node[node.index] += 1
                        total += 1
            found = _Counts(per_node, total)
            self._counts[matcher] = found
        if key:
            found.keys.add(key)
        found.spread = found.spread or spread
        return found

    def domain_counts(
        self, matcher: Matcher, key: str, eligible: npt.NDArray[np.bool_] | None = None
    ) -> FloatArray:
        """Return the matching pods per domain of ``key`` (only ``eligible`` rows counted)."""
        codes, values = self.domains(key)
        keep = codes >= 0 if eligible is None else (codes >= 0) & eligible
        per_node = self.counts(matcher, key=key).per_node
        counted = np.bincount(codes[keep], weights=per_node[keep], minlength=len(values))
        return np.asarray(counted, dtype=np.float64)

    def ports_in_use(self, row: int, ports: tuple[int, ...]) -> bool:
        """Return True when a pod on node ``row`` already holds one of ``ports``."""
        held = self.ports.get(row)
        return held is not None and any(held[p] > 0 for p in ports)

    # --- events --------------------------------------------------------------------------------
    def _add_static(self, task: TaskInfo, row: int) -> None:
        self._add_holder(task, row)
        if task.template.host_ports:
            self.ports.setdefault(row, Counter()).update(task.template.host_ports)

    def _add_holder(self, task: TaskInfo, row: int) -> None:
        anti = pod_affinity_terms(task.template.affinity, "podAntiAffinity", task.namespace)
        if anti:
            self.holders[task.uid] = Holder(row, task.namespace, anti)

    def on_event(self, event: Event, *, added: bool) -> None:
        """Account a task placed on (``added``) or taken off its node; touch affected rows.

        While the session simulates (topology-aware preemption) only host ports follow the
        statement: the inter-pod state moves through ``apply`` from the simulate hooks alone.
        """
        task = event.task
        node = self.ssn.nodes.get(task.node_name)
        if node is None:
            return
        self.apply(task, node.index, added=added, ports=True, affinity=not self.ssn.simulating)

    def apply(self, task: TaskInfo, row: int, *, added: bool, ports: bool, affinity: bool) -> None:
        """Count ``task`` on (``added``) or off node ``row``: its host ports, its inter-pod terms."""
        if ports and task.template.host_ports:
            if added:
                self.ports.setdefault(row, Counter()).update(task.template.host_ports)
            elif row in self.ports:
                self.ports[row].subtract(task.template.host_ports)
        if not affinity:
            return
        step = 1 if added else -1
        touched: list[IntArray] = []
        everything = False
        for matcher, counts in self._counts.items():
            if matcher.matches(task):
                counts.per_node[row] += step
                counts.total += step
                everything = everything or counts.spread
                touched.extend(self.same_domain(k, row) for k in counts.keys)
        if added:
            self._add_holder(task, row)
        else:
            self.holders.pop(task.uid, None)
        anti = pod_affinity_terms(task.template.affinity, "podAntiAffinity", task.namespace)
        touched.extend(self.same_domain(t.topology_key, row) for t in anti)
        if everything:
            self.ssn.touch_nodes(range(self.n))
        elif touched:
            self.ssn.touch_nodes(np.unique(np.concatenate(touched)).tolist())
