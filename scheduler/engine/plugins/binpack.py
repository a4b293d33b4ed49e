"""Binpack plugin: prefer the node that is fullest after placing the task.

Volcano's counterpart: ``pkg/scheduler/plugins/binpack``. For every dimension the task asks for
that has a configured weight (``binpack.cpu``, ``binpack.memory``, ``binpack.resources.<name>``
for the names listed in ``binpack.resources``; ``pods`` never has one), the node's share used
after placement, ``(used + request) / allocatable``, is averaged by weight and scaled to
0-100 x ``binpack.weight``. A node where the task would overflow any weighted dimension scores
0; a dimension the node does not have contributes 0 but still counts in the weight sum.

The score is computed for many node rows at once from the snapshot's ``NodeArrays``: the
weights become one vector over the resource columns, so a task template costs one vectorised
expression however many nodes there are.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from scheduler.engine.api.resource import CPU, MEMORY, PODS
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.framework import ArgSpec, Session, register_plugin
from scheduler.engine.framework.interface import Plugin
from scheduler.engine.plugins.predicates.row_cache import RowCache

__all__ = ["BinpackPlugin", "binpack_weights"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

WEIGHT = "binpack.weight"
CPU_WEIGHT = "binpack.cpu"
MEMORY_WEIGHT = "binpack.memory"
RESOURCES = "binpack.resources"
RESOURCE_PREFIX = "binpack.resources."


def _non_negative(value: float) -> float:
    """Return ``value``, or 1 when negative (Volcano resets negative weights to 1)."""
    return 1.0 if value < 0 else value


def binpack_weights(plugin: Plugin) -> dict[str, float]:
    """Return the weight of every resource name binpack scores (cpu, memory, listed extras)."""
    args = plugin.arguments
    weights = {
        CPU: _non_negative(args.get_float(CPU_WEIGHT)),
        MEMORY: _non_negative(args.get_float(MEMORY_WEIGHT)),
    }
    listed = [name.strip() for name in args.get_str(RESOURCES).split(",") if name.strip()]
    for name in listed:
        if name in (CPU, MEMORY, PODS):
            continue
        key = RESOURCE_PREFIX + name
        weights[name] = _non_negative(args.get_float(key)) if args.is_set(key) else 1.0
    return weights


@register_plugin
class BinpackPlugin(Plugin):
    """Scores nodes higher the fuller they would be; weight 0 turns scoring off."""

    name = "binpack"
    arguments_schema = (
        ArgSpec(WEIGHT, float, 1, help="multiplier of the 0-100 binpack score"),
        ArgSpec(CPU_WEIGHT, float, 1, help="weight of cpu"),
        ArgSpec(MEMORY_WEIGHT, float, 1, help="weight of memory"),
        ArgSpec(RESOURCES, str, "", help="comma-separated extra resource names to score"),
        ArgSpec(RESOURCE_PREFIX, float, 1, prefix=True, help="weight of one extra resource"),
    )

    def on_session_open(self, ssn: Session) -> None:
        """Register the batch node score, unless ``binpack.weight`` is 0."""
        self._weight = self.arguments.get_float(WEIGHT)
        if self._weight == 0:
            return
        self._arrays = ssn.arrays
        columns = ssn.resource_index.position
        self._column_weights = np.zeros(len(ssn.resource_index), dtype=np.float64)
        for name, weight in binpack_weights(self).items():
            col = columns.get(name)
            if col is not None:
                self._column_weights[col] = weight
        # Resources nobody in the snapshot mentions have no column: they cannot be requested.
        self._plans: dict[int, tuple[IntArray, FloatArray, float]] = {}
        # The same plan as Python lists (column, weight) and the request as a list: scalar form.
        self._scalar_plans: dict[int, tuple[list[tuple[int, float]], list[int]]] = {}
        self._cache = RowCache(ssn.arrays, self._vector, self._one)
        # Allocatable rows as Python lists (they do not change in a session): the scalar form.
        self._alloc_lists: list[list[int]] = ssn.arrays.allocatable.tolist()
        ssn.add_batch_node_order_fn(self.name, self.score, row=self.score_row)

    def _plan(self, req: IntArray) -> tuple[IntArray, FloatArray, float]:
        """Return the scored columns of a request, their weights and the weight sum (cached)."""
        key = id(req)  # request rows are memoised per distinct request by the ResourceIndex
        found = self._plans.get(key)
        if found is None:
            weights = np.where(req > 0, self._column_weights, 0.0)
            cols = np.flatnonzero(weights)
            found = (cols, weights[cols], float(weights.sum()))
            self._plans[key] = found
        return found

    def score_row(self, task: TaskInfo, row: int) -> float:
        """Return ``score`` for the one row ``row`` (the node a pod just took)."""
        req = task.resreq_vec
        assert req is not None
        # The scalar form directly: the RowCache catches up from the change log when next asked
        # for a whole vector (the two forms give the same numbers). ``_one``, inlined (per pod).
        scalar = self._scalar_plans.get(id(req))
        if scalar is None:
            return self._one(req, row)
        weight_sum = self._plans[id(req)][2]
        if weight_sum == 0:
            return 0.0
        return self._score_row(row, scalar[0], scalar[1], weight_sum)

    def score(self, task: TaskInfo, rows: IntArray) -> FloatArray:
        """Return the binpack score of each node row for ``task`` (0 where it would overflow)."""
        req = task.resreq_vec
        assert req is not None
        scores = self._cache.scores(req)
        if len(rows) == 1:
            return np.array([scores[int(rows[0])]], dtype=np.float64)
        result: FloatArray = scores[rows]
        return result

    def _vector(self, req: IntArray, rows: IntArray | None) -> FloatArray:
        """Return the scores of ``rows`` (every row when None) for request ``req``."""
        cols, weights, weight_sum = self._plan(req)
        size = self._arrays.allocatable.shape[0] if rows is None else len(rows)
        if weight_sum == 0:
            return np.zeros(size, dtype=np.float64)
        if rows is None:
            alloc = self._arrays.allocatable[:, cols]
            after = self._arrays.used[:, cols] + req[cols]
        else:
            alloc = self._arrays.allocatable[rows][:, cols]
            after = self._arrays.used[rows][:, cols] + req[cols]
        overflow = ((after > alloc) & (alloc > 0)).any(axis=1)
        share = np.where(alloc > 0, after / np.where(alloc > 0, alloc, 1), 0.0)
        total = (share * weights).sum(axis=1)
        scores: FloatArray = total / weight_sum * 100.0 * self._weight
        scores[overflow] = 0.0
        return scores

    def _one(self, req: IntArray, row: int) -> float:
        """Return the score of one row for request ``req`` (the scalar form of ``_vector``)."""
        key = id(req)
        scalar = self._scalar_plans.get(key)
        if scalar is None:
            cols, weights, weight_sum = self._plan(req)
            scalar = (list(zip(cols.tolist(), weights.tolist(), strict=True)), req.tolist())
            self._scalar_plans[key] = scalar
        weight_sum = self._plans[key][2]
        if weight_sum == 0:
            return 0.0
        return self._score_row(row, scalar[0], scalar[1], weight_sum)

    def _score_row(
        self, row: int, plan: list[tuple[int, float]], req_row: list[int], weight_sum: float
    ) -> float:
        """Return the score of one row: the same arithmetic as ``score``, on Python scalars."""
        alloc_row = self._alloc_lists[row]
        used_row = self._arrays.used[row].tolist()
        total = 0.0
        for col, weight in plan:
            alloc = alloc_row[col]
            after = used_row[col] + req_row[col]
            if alloc <= 0:
                total += 0.0 * weight
                continue
            if after > alloc:
                return 0.0
            total += (after / alloc) * weight
        return total / weight_sum * 100.0 * self._weight
