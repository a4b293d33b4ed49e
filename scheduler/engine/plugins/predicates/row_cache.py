"""Score vectors over every node row, one per distinct request, kept current from the change log.

A resource score (least requested, balanced, binpack) depends only on the pod's request and the
node's accounting, not on the pod's labels. Jobs usually differ in labels but not in requests,
so node selection's per-template cache would recompute the same vector for every job. This cache
keeps one vector per request row (``ResourceIndex`` memoises equal requests into one array, so
its identity is the key) and, like node selection, reads ``NodeArrays.changes`` to recompute only
the rows that changed since it last looked (one scalar evaluation for the node a pod just took).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from scheduler.engine.api.node_info import NodeArrays
from scheduler.engine.api.resource import Vector

__all__ = ["RowCache"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

# (request, rows or None for every row) -> scores of those rows
VectorFn = Callable[[Vector, IntArray | None], FloatArray]
# (request, row) -> score of that row, the same arithmetic on Python scalars
ScalarFn = Callable[[Vector, int], float]


@dataclass(slots=True)
class _Entry:
    req: Vector  # held so its id() stays unique while cached
    scores: FloatArray
    epoch: int
    read: int


class RowCache:
    """Per-request score vectors; ``scores(req)`` returns the up-to-date vector."""

    __slots__ = ("_arrays", "_entries", "_n", "_one", "_vector")

    def __init__(self, arrays: NodeArrays, vector: VectorFn, one: ScalarFn) -> None:
        self._arrays = arrays
        self._n = int(arrays.allocatable.shape[0])
        self._vector = vector
        self._one = one
        self._entries: dict[int, _Entry] = {}

    def scores(self, req: Vector) -> FloatArray:
        """Return the scores of every node row for request ``req`` (do not modify it)."""
        arrays = self._arrays
        log = arrays.changes
        entry = self._entries.get(id(req))
        if entry is None or entry.epoch != arrays.epoch:
            entry = _Entry(req, self._vector(req, None), arrays.epoch, len(log))
            self._entries[id(req)] = entry
            return entry.scores
        if entry.read == len(log) - 1:  # the usual case: one pod just landed
            row = log[-1]
            entry.read += 1
            entry.scores[row] = self._one(req, row)
        elif entry.read < len(log):
            changed = log[entry.read :]
            entry.read = len(log)
            if len(changed) <= 8:
                for row in set(changed):
                    entry.scores[row] = self._one(req, row)
            elif len(changed) > self._n // 4:
                entry.scores = self._vector(req, None)
            else:
                rows = np.unique(np.array(changed, dtype=np.int64))
                entry.scores[rows] = self._vector(req, rows)
        return entry.scores
