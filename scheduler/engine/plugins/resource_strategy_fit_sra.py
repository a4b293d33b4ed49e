"""SRA (scarce resource avoidance), resource-strategy-fit's second score.

Volcano's counterpart: ``pkg/scheduler/plugins/resource-strategy-fit/sra.go``. A pod that asks
for no scarce resource should keep off nodes that have them: a node scores
``(1 - weight of the listed resources it has / weight of all listed resources) x 100 x
sra.weight``, and 0 when it lacks (allocatable 0) any resource the pod requests. The first part
depends only on node allocatable, so it is one vector per session.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from scheduler.engine.api.node_info import NodeArrays

__all__ = ["SraScore"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
MAX_NODE_SCORE = 100.0


class SraScore:
    """The SRA score of every node row, for a request row."""

    __slots__ = ("_arrays", "_asked", "_static")

    def __init__(self, arrays: NodeArrays, weights: Mapping[str, int], weight: int) -> None:
        self._arrays = arrays
        total = sum(weights.values())
        held = np.zeros(arrays.allocatable.shape[0], dtype=np.float64)
        for name, resource_weight in weights.items():
            col = arrays.index.position.get(name)
            if col is not None:
                held += np.where(arrays.allocatable[:, col] > 0, float(resource_weight), 0.0)
        static = 1.0 - held / total if total > 0 else held
        self._static: FloatArray = static * (MAX_NODE_SCORE * weight)
        self._asked: dict[int, list[int]] = {}  # id(request row) -> its requested columns

    def scores(self, req: IntArray, rows: IntArray) -> FloatArray:
        """Return the SRA score of ``rows`` for request row ``req``."""
        asked = np.flatnonzero(req > 0)
        lacks = (self._arrays.allocatable[rows][:, asked] == 0).any(axis=1)
        out: FloatArray = np.where(lacks, 0.0, self._static[rows])
        return out

    def score_row(self, req: IntArray, alloc_row: list[int], row: int) -> float:
        """Return ``scores`` for one row (``alloc_row`` is its allocatable as a list)."""
        asked = self._asked.get(id(req))  # request rows are memoised per distinct request
        if asked is None:
            asked = self._asked[id(req)] = np.flatnonzero(req > 0).tolist()
        if any(alloc_row[col] == 0 for col in asked):
            return 0.0
        return float(self._static[row])
