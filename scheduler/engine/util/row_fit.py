"""Per-node-row resource tests over the ``(nodes, resources)`` accounting matrices.

``(matrix >= request).all(axis=1)`` reduces a short inner axis (a handful of resources) once per
row, which numpy does three to four times slower than a few column-wide comparisons ANDed
together. These tests run for every template over every node (node selection) and for every
preemptor and reclaimer (eviction), so they are written column by column; the answers are the
same booleans.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["rows_covering", "rows_fit"]

Matrix = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


def rows_fit(room: Matrix, request: npt.NDArray[np.int64]) -> BoolArray:
    """Return, per row of ``room``, whether it holds ``request`` in every column."""
    width = room.shape[1]
    if width == 0:
        return np.ones(room.shape[0], dtype=np.bool_)
    wanted = request.tolist()
    out: BoolArray = room[:, 0] >= wanted[0]
    for col in range(1, width):
        out &= room[:, col] >= wanted[col]
    return out


def rows_covering(room: Matrix, bound: Matrix, request: npt.NDArray[np.int64]) -> BoolArray:
    """Return, per row, whether ``room + bound`` holds ``request`` in every column."""
    width = room.shape[1]
    if width == 0:
        return np.ones(room.shape[0], dtype=np.bool_)
    wanted = request.tolist()
    out: BoolArray = room[:, 0] + bound[:, 0] >= wanted[0]
    for col in range(1, width):
        out &= room[:, col] + bound[:, col] >= wanted[col]
    return out
