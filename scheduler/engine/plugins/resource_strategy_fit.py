"""resource-strategy-fit plugin: per-resource MostAllocated / LeastAllocated scoring, plus SRA.

Volcano's counterpart: ``pkg/scheduler/plugins/resource-strategy-fit``. For every resource the
pod requests that ``resources`` configures (exact name, else the longest ``prefix*``), the node
scores ``weight x (used + request) / allocatable`` (MostAllocated) or ``weight x (allocatable -
used - request) / allocatable`` (LeastAllocated); the sum is divided by the sum of those weights
and multiplied by 100 x ``resourceStrategyFitWeight``. A node where such a resource would
overflow scores 0; a resource the node has none of contributes 0 but its weight counts.

A pod may choose for itself: annotation ``volcano.sh/resource-strategy-scoring-type`` (the type
for every resource) with ``volcano.sh/resource-strategy-weight`` (JSON resource -> weight; only
the resources named are scored). A type annotation without a readable weight annotation scores
0. Such pods get node-answer cache keys of their own, as the template does not hold annotations.

Two more parts, each its own module: SRA (``sra``, a second score keeping ordinary pods off nodes
with scarce resources, ``resource_strategy_fit_sra.py``) and the proportional predicate
(``proportional``, ``resource_strategy_fit_proportional.py``). The score is registered only when
``resourceStrategyFitWeight`` or ``sra.weight`` is above 0, the predicate only with
``proportional.enable``: a conf without the plugin, or with its parts off, costs nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from scheduler.engine.api.node_info import NodeInfo
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import FitCode, PredicateStatus
from scheduler.engine.framework import ArgSpec, Plugin, Session, register_plugin
from scheduler.engine.plugins.resource_strategy_fit_conf import (
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    ResourceStrategy,
    check_int_map,
    check_number_map,
    check_pod_weights,
    check_resources,
    find_strategy,
    read_proportions,
    read_resources,
    read_sra_weights,
)
from scheduler.engine.plugins.resource_strategy_fit_proportional import ProportionalCheck
from scheduler.engine.plugins.resource_strategy_fit_sra import SraScore

__all__ = ["SCORING_TYPE_KEY", "SCORING_WEIGHT_KEY", "ResourceStrategyFitPlugin"]

SCORING_TYPE_KEY = "volcano.sh/resource-strategy-scoring-type"
SCORING_WEIGHT_KEY = "volcano.sh/resource-strategy-weight"
DEFAULT_WEIGHT = 10
MAX_NODE_SCORE = 100.0

BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(slots=True, frozen=True)
class _Plan:
    """The scored columns of one request (and pod annotations), their weights and kinds."""

    cols: IntArray
    weights: FloatArray
    most: BoolArray
    least: BoolArray
    weight_sum: float
    zero: bool = False  # a type annotation without readable weights: the score is 0
    # The same as Python (column, weight, kind) triples, kind 1 Most, 2 Least, 0 neither: the
    # one-row form after each placement reads these instead of building arrays.
    scalar: tuple[tuple[int, float, int], ...] = ()


def _pod_choice(task: TaskInfo) -> tuple[str, str] | None:
    """Return the pod's (scoring type, weight JSON) annotations, or None when it has no type."""
    kind = task.annotations.get(SCORING_TYPE_KEY, "")
    if not kind:
        return None
    return kind, task.annotations.get(SCORING_WEIGHT_KEY, "")


@register_plugin
class ResourceStrategyFitPlugin(Plugin):
    """Scores nodes per resource strategy (and SRA); filters by proportions when enabled."""

    name = "resource-strategy-fit"
    arguments_schema = (
        ArgSpec("resourceStrategyFitWeight", int, DEFAULT_WEIGHT,
                help="multiplier of the 0-100 strategy score (0: off; negative: 10)"),
        ArgSpec("resources", str, "",
                help="a YAML map resource -> {type: MostAllocated|LeastAllocated, weight}; a key "
                "may end in one '*' (prefix); default: cpu and memory LeastAllocated, weight 1",
                nested=check_resources),
        ArgSpec("sra.enable", bool, False, section="sra",
                help="score down nodes holding scarce resources the pod does not ask for"),
        ArgSpec("sra.resources", str, "", section="sra",
                help="comma-separated scarce resource names (e.g. nvidia.com/gpu)"),
        ArgSpec("sra.weight", int, 0, section="sra",
                help="multiplier of the 0-100 SRA score (0: off)"),
        ArgSpec("sra.resourceWeight", str, "", section="sra",
                help="a YAML map resource -> integer weight (default 1)", nested=check_int_map),
        ArgSpec("proportional.enable", bool, False, section="proportional",
                help="keep cpu and memory free beside each unit of the listed resources"),
        ArgSpec("proportional.resources", str, "", section="proportional",
                help="comma-separated resource names (e.g. nvidia.com/gpu)"),
        ArgSpec("proportional.resourceProportion", str, "", section="proportional",
                help="a YAML map '<name>.cpu' (CPUs) and '<name>.memory' (G) per unit; "
                "default 1 each", nested=check_number_map),
    )  # fmt: skip

    def on_session_open(self, ssn: Session) -> None:
        """Read the arguments and register only the parts that are on."""
        args = self.arguments
        weight = args.get_int("resourceStrategyFitWeight")
        self._fit_weight = DEFAULT_WEIGHT if weight < 0 else weight
        self._resources = read_resources(args.get_str("resources"))
        sra_weight = args.get_int("sra.weight") if args.get_bool("sra.enable") else 0
        self._arrays = ssn.arrays
        self._names = ssn.resource_index.names
        # The configured strategy of every resource column (None: not scored).
        self._column_strategy: list[ResourceStrategy | None] = [
            find_strategy(name, self._resources) for name in self._names
        ]
        self._plans: dict[tuple[int, tuple[str, str] | None], _Plan] = {}
        # Allocatable rows as Python lists (they do not change in a session): the one-row form.
        self._alloc_lists: list[list[int]] = ssn.arrays.allocatable.tolist()
        self._sra = (
            SraScore(
                ssn.arrays,
                read_sra_weights(args.get_str("sra.resources"), args.get_str("sra.resourceWeight")),
                sra_weight,
            )
            if sra_weight > 0
            else None
        )
        if args.get_bool("proportional.enable"):
            self._proportional = ProportionalCheck(
                ssn.arrays,
                ssn.node_list,
                read_proportions(
                    args.get_str("proportional.resources"),
                    args.get_str("proportional.resourceProportion"),
                ),
            )
            ssn.add_predicate_fn(self.name, self._predicate)
            ssn.add_batch_predicate_fn(self.name, self._batch_predicate, row=self._row_predicate)
        if self._fit_weight > 0 or self._sra is not None:
            if self._fit_weight > 0:
                self._split_keys(ssn)
            ssn.add_batch_node_order_fn(self.name, self.score, row=self._row_score)

    @staticmethod
    def _split_keys(ssn: Session) -> None:
        """Give pods that choose their own strategy node-answer cache keys of their own."""
        for job in ssn.jobs.values():
            for task in job.tasks.values():
                choice = _pod_choice(task)
                if choice is None:
                    continue
                marker = ("resource-strategy-fit", *choice)
                key = task.template_key or task.compute_template_key()
                if marker not in key:
                    task.template_key = (*key, marker)

    # --- the proportional predicate --------------------------------------------------------------
    def _predicate(self, task: TaskInfo, node: NodeInfo) -> PredicateStatus | None:
        assert task.resreq_vec is not None
        reason = self._proportional.reason(task.resreq_vec, node.index)
        if reason is None:
            return None
        return PredicateStatus(reason, FitCode.UNSCHEDULABLE_AND_UNRESOLVABLE, plugin=self.name)

    def _batch_predicate(self, task: TaskInfo, rows: IntArray) -> BoolArray:
        assert task.resreq_vec is not None
        return self._proportional.mask(task.resreq_vec, rows)

    def _row_predicate(self, task: TaskInfo, row: int) -> bool:
        assert task.resreq_vec is not None
        return self._proportional.passes_row(task.resreq_vec, row)

    # --- the scores --------------------------------------------------------------------------------
    def _plan(self, task: TaskInfo, req: IntArray) -> _Plan:
        """Return which columns are scored for this request and pod, how (cached)."""
        choice = _pod_choice(task)
        key = (id(req), choice)  # request rows are memoised per distinct request
        plan = self._plans.get(key)
        if plan is not None:
            return plan
        asked = np.flatnonzero(req > 0).tolist()
        picked: list[tuple[int, str, int]] = []
        zero = False
        if choice is None:
            for col in asked:
                strategy = self._column_strategy[col]
                if strategy is not None:
                    picked.append((col, strategy.type, strategy.weight))
        else:
            weights = check_pod_weights(choice[1]) if choice[1] else None
            if weights is None:
                zero = True
            else:
                picked = [
                    (col, choice[0], weights[self._names[col]])
                    for col in asked
                    if self._names[col] in weights
                ]
        plan = _Plan(
            cols=np.array([c for c, _t, _w in picked], dtype=np.int64),
            weights=np.array([w for _c, _t, w in picked], dtype=np.float64),
            most=np.array([t == MOST_ALLOCATED for _c, t, _w in picked], dtype=np.bool_),
            least=np.array([t == LEAST_ALLOCATED for _c, t, _w in picked], dtype=np.bool_),
            weight_sum=float(sum(w for _c, _t, w in picked)),
            zero=zero,
            scalar=tuple(
                (c, float(w), 1 if t == MOST_ALLOCATED else 2 if t == LEAST_ALLOCATED else 0)
                for c, t, w in picked
            ),
        )
        self._plans[key] = plan
        return plan

    def _fit_scores(self, task: TaskInfo, req: IntArray, rows: IntArray) -> FloatArray:
        """Return the strategy score of ``rows`` (Volcano's ``Score``)."""
        plan = self._plan(task, req)
        if plan.zero or not len(plan.cols):
            return np.zeros(len(rows), dtype=np.float64)
        alloc = self._arrays.allocatable[rows][:, plan.cols]
        after = self._arrays.used[rows][:, plan.cols] + req[plan.cols]
        # A zero weight or allocatable scores 0 before the overflow test; an unknown pod-chosen
        # type scores 0 after none (Volcano's switch has no case for it); both keep their weight.
        active = (alloc != 0) & (plan.weights != 0) & (plan.most | plan.least)
        overflow = (active & (after > alloc)).any(axis=1)
        safe = np.where(alloc != 0, alloc, 1)
        most = after * plan.weights / safe
        least = (alloc - after) * plan.weights / safe
        parts = np.where(active & plan.most, most, np.where(active & plan.least, least, 0.0))
        total: FloatArray = parts.sum(axis=1)
        if plan.weight_sum > 0:
            total = total / plan.weight_sum
        total = total * (MAX_NODE_SCORE * self._fit_weight)
        total[overflow] = 0.0
        return total

    def score(self, task: TaskInfo, rows: IntArray) -> FloatArray:
        """Return the plugin's score of each node row: strategy score plus SRA."""
        req = task.resreq_vec
        assert req is not None
        if self._fit_weight > 0:
            scores = self._fit_scores(task, req, rows)
        else:
            scores = np.zeros(len(rows), dtype=np.float64)
        if self._sra is not None:
            scores = scores + self._sra.scores(req, rows)
        return scores

    def _row_score(self, task: TaskInfo, row: int) -> float:
        """Return ``score`` for one row, on Python scalars (asked once per placed pod)."""
        req = task.resreq_vec
        assert req is not None
        score = 0.0
        alloc_row: list[int] = self._alloc_lists[row]
        if self._fit_weight > 0:
            score = self._fit_row(self._plan(task, req), req, alloc_row, row)
        if self._sra is not None:
            score += self._sra.score_row(req, alloc_row, row)
        return score

    def _fit_row(self, plan: _Plan, req: IntArray, alloc_row: list[int], row: int) -> float:
        """Return the strategy score of one row: ``_fit_scores``' arithmetic, term by term."""
        if plan.zero or not plan.scalar:
            return 0.0
        used_row = self._arrays.used[row]
        total = 0.0
        for col, weight, kind in plan.scalar:
            alloc = alloc_row[col]
            if alloc == 0 or weight == 0 or kind == 0:
                continue
            after = int(used_row[col]) + int(req[col])
            if after > alloc:
                return 0.0
            total += (after * weight / alloc) if kind == 1 else ((alloc - after) * weight / alloc)
        if plan.weight_sum > 0:
            total = total / plan.weight_sum
        return total * (MAX_NODE_SCORE * self._fit_weight)
