"""Queue-quota arithmetic shared by proportion, capacity, overcommit and drf, on NumPy rows.

Volcano's counterpart: the ``Resource`` comparisons of ``pkg/scheduler/api/resource_info.go`` that
the queue plugins use (``LessEqualWithDimension``, ``MinDimensionResource`` with the Infinity
default, ``ExceededPart``) and ``pkg/scheduler/plugins/util`` (``GetInqueueResource``). Plugins
keep per-queue and per-job amounts as rows of the session's ``ResourceIndex`` so an allocate or
deallocate event costs one vector addition (O(resources)), whatever the cluster size.

Amounts are exact ``int64`` milli-units, except proportion's water-filled ``deserved``, which is a
share of the cluster and so a ``float64`` row; comparisons against it allow Volcano's tolerance
(0.1 milli-unit, relative for the huge memory values). "Unlimited" is ``UNLIMITED``, far above any
real amount but safe to add a few of without overflow.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from scheduler.engine.api.resource import CPU, MEMORY, PODS, Resource, ResourceIndex
from scheduler.engine.api.types import ALLOCATED_STATUSES, PodGroupPhase, TaskStatus

if TYPE_CHECKING:
    from scheduler.engine.api.job_info import JobInfo

__all__ = [
    "UNLIMITED",
    "FloatRow",
    "IntRow",
    "capability_row",
    "exceeds_on",
    "fits_on",
    "gated_request",
    "inqueue_uncovered",
    "job_allocated_and_request",
    "le_all",
    "quota_dims",
    "row",
    "share",
    "slack",
    "total",
]

IntRow = npt.NDArray[np.int64]
FloatRow = npt.NDArray[np.float64]
Row = IntRow | FloatRow

UNLIMITED = 2**60
_TOLERANCE = 0.1  # Volcano's minResource
_RELATIVE = 1e-12  # float rows of memory milli-bytes are not exact past 2**53


def row(index: ResourceIndex, resource: Resource | None) -> IntRow:
    """Return a writable ``int64`` copy of ``resource`` (zeros for None)."""
    if resource is None:
        return np.zeros(len(index), dtype=np.int64)
    return index.vector(resource).copy()


def capability_row(index: ResourceIndex, capability: Resource | None) -> IntRow:
    """Return a queue capability with Volcano's gaps filled as unlimited.

    No capability at all is unlimited everywhere; a missing or non-positive cpu or memory is
    unlimited; a missing extended resource is unlimited, one given as 0 is a real limit of 0.
    """
    out = np.full(len(index), UNLIMITED, dtype=np.int64)
    if capability is None:
        return out
    for name, amount in capability.items():
        pos = index.position.get(name)
        if pos is None:
            continue
        if name in (CPU, MEMORY) and amount <= 0:
            continue
        out[pos] = amount
    return out


def quota_dims(index: ResourceIndex, request: Row) -> npt.NDArray[np.bool_]:
    """Return the columns a quota test looks at: what ``request`` asks for, ``pods`` excluded."""
    dims: npt.NDArray[np.bool_] = request > 0
    dims[index.position[PODS]] = False
    return dims


def slack(right: Row) -> Row | float:
    """Return the tolerance of a "≤ right" test: none for exact rows, Volcano's for floats."""
    if right.dtype == np.int64:
        return 0.0
    return _TOLERANCE + _RELATIVE * np.abs(right)


def le_all(left: Row, right: Row) -> bool:
    """Return True when ``left`` ≤ ``right`` in every column (Volcano's ``LessEqual``, Zero)."""
    return bool((left <= right + slack(right)).all())


def fits_on(left: Row, right: Row, dims: npt.NDArray[np.bool_]) -> bool:
    """Return True when ``left`` ≤ ``right`` on the columns ``dims`` (``LessEqualWithDimension``)."""
    ok = left <= right + slack(right)
    return bool((ok | ~dims).all())


def exceeds_on(left: Row, right: Row, dims: npt.NDArray[np.bool_]) -> bool:
    """Return True when ``left`` > ``right`` on at least one column of ``dims``."""
    over = left > right + slack(right)
    return bool((over & dims).any())


def share(allocated: Row, of: Row, dims: npt.NDArray[np.bool_]) -> float:
    """Return the dominant share: max over ``dims`` of allocated / of (0 with no dims)."""
    if not dims.any():
        return 0.0
    return float(np.max(allocated[dims] / of[dims]))


def gated_request(job: JobInfo, index: ResourceIndex) -> IntRow:
    """Return the summed request of the job's scheduling-gated pending tasks."""
    out = np.zeros(len(index), dtype=np.int64)
    for task in job.task_status_index.get(TaskStatus.PENDING, {}).values():
        if task.scheduling_gated and task.resreq_vec is not None:
            out += task.resreq_vec
    return out


def job_allocated_and_request(job: JobInfo, index: ResourceIndex) -> tuple[IntRow, IntRow]:
    """Return (allocated, request): tasks in allocated statuses, and those plus pending tasks."""
    allocated = np.zeros(len(index), dtype=np.int64)
    pending = np.zeros(len(index), dtype=np.int64)
    for status, tasks in job.task_status_index.items():
        if status in ALLOCATED_STATUSES:
            target = allocated
        elif status == TaskStatus.PENDING:
            target = pending
        else:
            continue
        for task in tasks.values():
            if task.resreq_vec is not None:
                target += task.resreq_vec
    return allocated, allocated + pending


def _allocated_task_count(job: JobInfo) -> int:
    return job.count(*ALLOCATED_STATUSES)


def inqueue_uncovered(job: JobInfo, index: ResourceIndex, allocated: IntRow) -> IntRow | None:
    """Return what an admitted job still holds in reserve (proportion and capacity "inqueue").

    Inqueue PodGroups with minResources, and Running ones whose allocated tasks reached
    minMember: the part of minResources its allocated tasks do not cover yet (per requested
    column, floored at 0), less the requests of its scheduling-gated tasks. None otherwise.
    """
    if job.min_resources is None:
        return None
    if job.phase == PodGroupPhase.INQUEUE or (
        job.phase == PodGroupPhase.RUNNING and _allocated_task_count(job) >= job.min_available
    ):
        minimum = index.vector(job.min_resources)
        part = np.where(minimum > 0, np.maximum(minimum - allocated, 0), 0)
        return np.maximum(part - gated_request(job, index), 0)
    return None


def total(rows: Iterable[IntRow], width: int) -> IntRow:
    """Return the sum of ``rows``."""
    out = np.zeros(width, dtype=np.int64)
    for r in rows:
        out += r
    return out
