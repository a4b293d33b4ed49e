"""Nodeorder plugin: kube-scheduler's scores, each 0-100 per node, weighted and summed.

Volcano's counterpart: ``pkg/scheduler/plugins/nodeorder``. Scorers and default weights (a weight
of 0 removes the scorer):

- ``leastrequested`` (1): mean over cpu and memory of ``(allocatable - requested) * 100 //
  allocatable``, requested = node used + the pod's request (0 when it would not fit);
- ``mostrequested`` (0): mean of ``requested * 100 // allocatable`` (requested capped);
- ``balancedresource`` (1): ``(1 - std) * 100`` of the requested fractions of cpu, memory and
  ``nvidia.com/gpu`` on the node (resources the node lacks are left out);
- ``nodeaffinity`` (2): the weights of the preferred node-affinity terms the node matches;
- ``tainttoleration`` (3): the number of PreferNoSchedule taints the pod does not tolerate
  (fewer is better);
- ``podaffinity`` (2): for each preferred (anti-)affinity term, +(-) weight x matching pods in
  the node's domain;
- ``podtopologyspread`` (2): ScheduleAnyway constraints, fewer matching pods in the domain is
  better;
- ``imagelocality`` (1): accepted; the snapshot carries no node image lists, so it scores 0.

The last four are normalised to 0-100 as kube-scheduler does (max, reversed max, min-max, spread's
``(max + min - s) / max``) over the nodes the pod's node selector and required affinity admit
(kube-scheduler normalises over the nodes that passed every filter; this set ignores resource fit
and pod counts so that a cached score vector stays valid as nodes fill up). Everything is computed
over node rows with NumPy, so a task template costs one vectorised pass.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from scheduler.engine.api.resource import CPU, MEMORY, Vector
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.framework import ArgSpec, EventHandler, Plugin, Session, register_plugin
from scheduler.engine.plugins.predicates.inter_pod import SpreadConstraint
from scheduler.engine.plugins.predicates.pod_index import Matcher, PodIndex
from scheduler.engine.plugins.predicates.row_cache import RowCache
from scheduler.engine.plugins.predicates.selectors import (
    NodeConstraintKeys,
    WeightedTerm,
    node_matches_selector,
    preferred_node_terms,
    preferred_pod_terms,
    taint_groups,
    tolerates,
)

__all__ = ["NodeOrderPlugin"]

BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

GPU = "nvidia.com/gpu"
MAX_SCORE = 100.0
WEIGHTS = (
    ("leastrequested.weight", 1),
    ("mostrequested.weight", 0),
    ("nodeaffinity.weight", 2),
    ("podaffinity.weight", 2),
    ("balancedresource.weight", 1),
    ("tainttoleration.weight", 3),
    ("imagelocality.weight", 1),
    ("podtopologyspread.weight", 2),
)


def _normalise_max(raw: FloatArray, over: BoolArray, *, reverse: bool) -> FloatArray:
    """Return kube's DefaultNormalizeScore of ``raw``: scaled by the max over ``over``."""
    top = float(raw[over].max()) if over.any() else 0.0
    if top == 0:
        return np.full(len(raw), MAX_SCORE if reverse else 0.0)
    scaled = np.floor(raw * MAX_SCORE / top)
    return MAX_SCORE - scaled if reverse else scaled


@register_plugin
class NodeOrderPlugin(Plugin):
    """Scores nodes with kube-scheduler's scorers, weighted by the plugin's arguments."""

    name = "nodeorder"
    arguments_schema = tuple(ArgSpec(key, int, default) for key, default in WEIGHTS)

    def on_session_open(self, ssn: Session) -> None:
        """Read the weights, build the pod index if pods prefer other pods, register the score."""
        self.ssn = ssn
        self.nodes = ssn.node_list
        self.w = {key.split(".")[0]: self.arguments.get_int(key) for key, _ in WEIGHTS}
        position = ssn.resource_index.position
        self._cols = np.array([position[CPU], position[MEMORY]], dtype=np.int64)
        self._balanced_cols = np.array(
            [position[n] for n in (CPU, MEMORY, GPU) if n in position], dtype=np.int64
        )
        self._cols_list: list[int] = self._cols.tolist()
        self._balanced_list: list[int] = self._balanced_cols.tolist()
        self._resources = RowCache(ssn.arrays, self._resource_vector, self._resource_row)
        # Allocatable rows as Python lists (they do not change in a session): the scalar form.
        self._alloc_lists: list[list[int]] = ssn.arrays.allocatable.tolist()
        self._least_w = self.w["leastrequested"]
        self._most_w = self.w["mostrequested"]
        self._balanced_w = self.w["balancedresource"]
        # Request rows (memoised per distinct request) as lists, for the scalar form.
        self._req_lists: dict[int, tuple[Vector, list[int]]] = {}
        self._static: dict[str, FloatArray] = {}
        # template key (``TaskInfo.template_key``) -> its static scores as a list, for the
        # one-row form: one-pod jobs each have their own template object but share a key
        self._static_by_key: dict[tuple[object, ...], list[float]] = {}
        self._eligible: dict[str, BoolArray] = {}
        self._keys = NodeConstraintKeys()
        self._prefer_groups = [
            (taints, rows)
            for taints, rows in taint_groups(self.nodes)
            if any(t.effect == "PreferNoSchedule" for t in taints)
        ]
        self.index: PodIndex | None = None
        if self._needs_index(ssn):
            index = PodIndex(ssn)
            self.index = index
            ssn.add_event_handler(
                EventHandler(
                    allocate_func=lambda e: index.on_event(e, added=True),
                    deallocate_func=lambda e: index.on_event(e, added=False),
                )
            )
        ssn.add_batch_node_order_fn(self.name, self.score, row=self.score_row)

    def _needs_index(self, ssn: Session) -> bool:
        if not (self.w["podaffinity"] or self.w["podtopologyspread"]):
            return False
        for template in ssn.templates():
            if template.topology_spread_constraints:
                return True
            if "podAffinity" in template.affinity or "podAntiAffinity" in template.affinity:
                return True
        return False

    # --- resource scores -----------------------------------------------------------------------
    # The weighted least/most/balanced sum depends only on the request and the node accounting,
    # so it is cached per request (``RowCache``). It has a vector form (every row, or the rows
    # changed since) and a scalar form (the node a pod just took), computed in the same order on
    # the same values so the two agree exactly.
    def _requested(
        self, req: Vector, rows: IntArray | None, cols: IntArray
    ) -> tuple[IntArray, IntArray]:
        arrays = self.ssn.arrays
        if rows is None:
            return arrays.allocatable[:, cols], arrays.used[:, cols] + req[cols]
        return arrays.allocatable[rows][:, cols], arrays.used[rows][:, cols] + req[cols]

    def _resource_vector(self, req: Vector, rows: IntArray | None) -> FloatArray:
        w = self.w
        size = len(self.nodes) if rows is None else len(rows)
        total = np.zeros(size, dtype=np.float64)
        if w["leastrequested"] or w["mostrequested"]:
            alloc, requested = self._requested(req, rows, self._cols)
            has = alloc > 0
            safe = np.where(has, alloc, 1)
            n = len(self._cols_list)
            if w["leastrequested"]:
                fits = has & (requested <= alloc)
                least = np.where(fits, (alloc - requested) * 100 // safe, 0).sum(axis=1) // n
                total += w["leastrequested"] * least.astype(np.float64)
            if w["mostrequested"]:
                used = np.minimum(requested, alloc)
                most = np.where(has, used * 100 // safe, 0).sum(axis=1) // n
                total += w["mostrequested"] * most.astype(np.float64)
        if w["balancedresource"]:
            alloc, requested = self._requested(req, rows, self._balanced_cols)
            has = alloc > 0
            fraction = np.minimum(np.where(has, requested / np.where(has, alloc, 1), 0.0), 1.0)
            count = np.maximum(has.sum(axis=1), 1)
            mean = fraction.sum(axis=1) / count
            var = np.where(has, (fraction - mean[:, None]) ** 2, 0.0).sum(axis=1) / count
            total += w["balancedresource"] * np.floor((1.0 - np.sqrt(var)) * MAX_SCORE)
        return total

    def _resource_row(self, req: Vector, row: int) -> float:
        """Return the weighted least/most/balanced score of one row (the scalar form).

        Called once per placed pod, so written for the interpreter: plain loops, no generators,
        the request as a cached list; the arithmetic and its order are those of the vector form.
        """
        alloc_row, used_row = self._alloc_lists[row], self.ssn.arrays.used[row].tolist()
        req_row = self._req_lists.get(id(req))
        if req_row is None or req_row[0] is not req:
            req_row = self._req_lists[id(req)] = (req, req.tolist())
        wanted = req_row[1]
        total = 0.0
        least_w, most_w, balanced_w = self._least_w, self._most_w, self._balanced_w
        if least_w or most_w:
            least = most = 0
            for col in self._cols_list:
                alloc, requested = alloc_row[col], used_row[col] + wanted[col]
                if alloc > 0:
                    if requested <= alloc:
                        least += (alloc - requested) * 100 // alloc
                        most += requested * 100 // alloc
                    else:
                        most += alloc * 100 // alloc
            n = len(self._cols_list)
            if least_w:
                total += least_w * float(least // n)
            if most_w:
                total += most_w * float(most // n)
        if balanced_w:
            fractions = []
            for c in self._balanced_list:
                alloc = alloc_row[c]
                if alloc > 0:
                    fraction = (used_row[c] + wanted[c]) / alloc
                    fractions.append(fraction if fraction < 1.0 else 1.0)
            count = len(fractions) or 1
            mean = sum(fractions) / count
            spread = 0.0
            for f in fractions:
                spread += (f - mean) ** 2
            var = spread / count
            total += balanced_w * math.floor((1.0 - math.sqrt(var)) * MAX_SCORE)
        return total

    # --- template scores -----------------------------------------------------------------------
    def _eligible_rows(self, task: TaskInfo) -> BoolArray:
        key = self._keys.key(task.template)
        found = self._eligible.get(key)
        if found is None:
            template = task.template
            if not template.node_selector and "nodeAffinity" not in template.affinity:
                found = np.ones(len(self.nodes), dtype=np.bool_)
            else:
                found = np.fromiter(
                    (node_matches_selector(task, n) for n in self.nodes), np.bool_, len(self.nodes)
                )
            self._eligible[key] = found
        return found

    def _static_scores(self, task: TaskInfo) -> FloatArray:
        """Return the weighted node-affinity and taint-toleration scores over every node row."""
        key = self._keys.key(task.template)
        found = self._static.get(key)
        if found is not None:
            return found
        n = len(self.nodes)
        total = np.zeros(n, dtype=np.float64)
        eligible = self._eligible_rows(task)
        terms = preferred_node_terms(task.template.affinity)
        if self.w["nodeaffinity"] and terms:
            raw = np.fromiter(
                (sum(w for w, t in terms if t.matches(node)) for node in self.nodes), np.float64, n
            )
            total += self.w["nodeaffinity"] * _normalise_max(raw, eligible, reverse=False)
        if self.w["tainttoleration"]:
            tolerations = [
                t for t in task.template.tolerations if t.effect in ("", "PreferNoSchedule")
            ]
            raw = np.zeros(n, dtype=np.float64)
            for taints, rows in self._prefer_groups:
                raw[rows] = sum(
                    1
                    for taint in taints
                    if taint.effect == "PreferNoSchedule"
                    and not any(tolerates(t, taint) for t in tolerations)
                )
            total += self.w["tainttoleration"] * _normalise_max(raw, eligible, reverse=True)
        self._static[key] = total
        return total

    def _pod_affinity(self, index: PodIndex, task: TaskInfo, eligible: BoolArray) -> FloatArray:
        """Return the min-max normalised preferred inter-pod affinity score over every row."""
        raw = np.zeros(len(self.nodes), dtype=np.float64)
        terms: list[tuple[int, WeightedTerm]] = [
            (1, t)
            for t in preferred_pod_terms(task.template.affinity, "podAffinity", task.namespace)
        ]
        terms += [
            (-1, t)
            for t in preferred_pod_terms(task.template.affinity, "podAntiAffinity", task.namespace)
        ]
        if not terms:
            return raw
        for sign, weighted in terms:
            term = weighted.term
            matcher = Matcher(term.selector, term.namespaces)
            index.counts(matcher, key=term.topology_key, spread=True)
            per_domain = index.domain_counts(matcher, term.topology_key)
            codes, _ = index.domains(term.topology_key)
            found = np.where(
                codes >= 0, per_domain[np.maximum(codes, 0)] if len(per_domain) else 0, 0
            )
            raw += sign * weighted.weight * found
        low, high = (
            (float(raw[eligible].min()), float(raw[eligible].max()))
            if eligible.any()
            else (0.0, 0.0)
        )
        if high == low:
            return np.zeros(len(raw), dtype=np.float64)
        return np.floor(MAX_SCORE * (raw - low) / (high - low))

    def _spread(self, index: PodIndex, task: TaskInfo, eligible: BoolArray) -> FloatArray:
        """Return the normalised ScheduleAnyway topology-spread score over every row."""
        soft = [
            c
            for c in (
                SpreadConstraint.parse(dict(r)) for r in task.template.topology_spread_constraints
            )
            if not c.hard
        ]
        n = len(self.nodes)
        if not soft:
            return np.zeros(n, dtype=np.float64)
        scored = eligible.copy()
        for c in soft:
            scored &= index.domains(c.topology_key)[0] >= 0
        raw = np.zeros(n, dtype=np.float64)
        namespace = frozenset({task.namespace})
        for c in soft:
            codes, values = index.domains(c.topology_key)
            matcher = Matcher(c.selector, namespace)
            index.counts(matcher, key=c.topology_key, spread=True)
            per_domain = index.domain_counts(matcher, c.topology_key, scored)
            domains = int((np.bincount(codes[scored], minlength=len(values)) > 0).sum())
            weight = float(np.log(domains + 2))
            counts = per_domain[np.maximum(codes, 0)] if len(per_domain) else np.zeros(n)
            raw += (counts + c.max_skew - 1) * weight
        if not scored.any():
            return np.zeros(n, dtype=np.float64)
        low, high = float(raw[scored].min()), float(raw[scored].max())
        if high == 0:
            return np.where(scored, MAX_SCORE, 0.0)
        return np.where(scored, np.floor(MAX_SCORE * (high + low - raw) / high), 0.0)

    # --- the batch score ------------------------------------------------------------------------
    def score_row(self, task: TaskInfo, row: int) -> float:
        """Return ``score`` for the one row ``row`` (the node a pod just took)."""
        if self.index is not None:
            return float(self.score(task, np.array([row], dtype=np.int64))[0])
        req = task.resreq_vec
        assert req is not None
        # The scalar form directly: the RowCache catches up from the change log when next asked
        # for a whole vector (the two forms give the same numbers).
        key = task.template_key or task.compute_template_key()
        found = self._static_by_key.get(key)
        if found is None:
            found = self._static_by_key[key] = self._static_scores(task).tolist()
        return found[row] + self._resource_row(req, row)

    def score(self, task: TaskInfo, rows: IntArray) -> FloatArray:
        """Return the weighted sum of every enabled scorer for each node row."""
        if len(rows) == 1 and self.index is None:  # the node a pod just took
            return np.array([self.score_row(task, int(rows[0]))], dtype=np.float64)
        req = task.resreq_vec
        assert req is not None
        static, resource = self._static_scores(task), self._resources.scores(req)
        total = static[rows] + resource[rows]
        index = self.index
        if index is not None:
            w = self.w
            eligible = self._eligible_rows(task)
            if w["podaffinity"]:
                total = total + w["podaffinity"] * self._pod_affinity(index, task, eligible)[rows]
            if w["podtopologyspread"]:
                total = total + w["podtopologyspread"] * self._spread(index, task, eligible)[rows]
        return total
