"""Decoded history rows turned into per-queue series: stacked with NumPy, one run at a time.

A chart's range holds rows of a few layouts at most (the queues and resources a sample
recorded): a week of one layout, then the newest rows after a queue was added, say. Rows of
one layout are stacked and transposed at once; the runs are then laid end to end per queue,
``None`` where a run did not have the queue. Before, any change of layout in the range sent
every row through a Python loop per queue and field, which at 100 queues over a week cost a
7-day queue or DRF chart a quarter of a second.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from itertools import chain, groupby
from typing import Any, TypeVar

import numpy as np

from monitoring.codec import DrfBlock, QueueBlocks

__all__ = ["ADDED_LATER", "PER_RESOURCE", "drf_queue_columns", "queue_columns"]

# Scalars a sample may lack (recorded before they existed): read as 0, not as another field.
ADDED_LATER = ("pods_pending", "pods_running")
PER_RESOURCE = ("allocated", "deserved", "guarantee", "capability")
Columns = dict[str, dict[str, list[Any]]]  # queue -> field -> one value per row
T = TypeVar("T")


def _runs(rows: Sequence[T], layout: Callable[[T], Hashable]) -> list[list[T]]:
    return [list(run) for _key, run in groupby(rows, key=layout)]


def _spliced(parts: list[tuple[int, list[str], Columns]], keys: Sequence[str]) -> Columns:
    """Return the runs' columns end to end per queue (first appearance first), ``None`` where
    a run had not the queue; one run's columns are returned as they are."""
    if len(parts) == 1:
        return parts[0][2]
    order = dict.fromkeys(chain.from_iterable(names for _n, names, _c in parts))
    return {name: {key: _joined(parts, name, key) for key in keys} for name in order}


def _joined(parts: list[tuple[int, list[str], Columns]], name: str, key: str) -> list[Any]:
    out: list[Any] = []
    for length, _names, columns in parts:
        out += columns[name][key] if name in columns else [None] * length
    return out


def queue_columns(steps: list[QueueBlocks], resource: str, fields: Sequence[str]) -> Columns:
    """Return per queue, per field, one value per step (``resource``'s column for amounts)."""
    runs = _runs(steps, lambda s: (tuple(s.names), tuple(s.resources), tuple(s.amounts)))
    parts = [(len(run), run[0].names, _queue_run(run, resource, fields)) for run in runs]
    return _spliced(parts, fields)


def _queue_run(steps: list[QueueBlocks], resource: str, fields: Sequence[str]) -> Columns:
    """Return the columns of steps of one layout: stacked and transposed. Amounts of a
    resource the layout has not are 0, as for a queue holding none of it."""
    first = steps[0]
    count = len(first.names)
    if resource in first.resources:
        column = first.resources.index(resource)
        amounts = np.stack([s.amount_block[:, :, column] for s in steps])  # time x field x queue
    else:
        amounts = np.zeros((len(steps), len(first.amounts), count), dtype=np.int64)
    zeros = np.zeros(count)
    out: Columns = {name: {} for name in first.names}
    for key in fields:
        if key in PER_RESOURCE:
            block = amounts[:, first.amounts.index(key), :]
        else:
            block = np.stack([_scalar_row(s, key, zeros) for s in steps])
        for name, series in zip(first.names, block.T.tolist(), strict=True):
            out[name][key] = series
    return out


def _scalar_row(step: QueueBlocks, key: str, zeros: np.ndarray) -> np.ndarray:
    """Return one sample's row of the scalar ``key`` (per queue)."""
    if key in step.scalars:
        return step.scalar_block[step.scalars.index(key)]
    if key in ADDED_LATER:  # recorded before the field existed
        return zeros
    # share_max is stored in merged samples only; a session's own is its share
    return step.scalar_block[step.scalars.index("share")]


_DRF_KEYS = ("jobs", "mean", "max")


def drf_queue_columns(blocks: list[DrfBlock]) -> Columns:
    """Return per queue ``{"jobs", "mean", "max"}`` over the samples, ``None`` where absent."""
    if not blocks:
        return {}
    parts = []
    for run in _runs(blocks, lambda b: tuple(b.names)):
        names = run[0].names
        stacked = np.stack([b.stats for b in run]) if names else np.zeros((len(run), 0, 3))
        columns = stacked.transpose(1, 2, 0).tolist()  # queue x (jobs, mean, max) x time
        parts.append((len(run), names, {
            name: dict(zip(_DRF_KEYS, values, strict=True))
            for name, values in zip(names, columns, strict=True)
        }))  # fmt: skip
    return _spliced(parts, _DRF_KEYS)
