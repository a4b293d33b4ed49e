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
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from scheduler.engine.api.resource import CPU, MEMORY, PODS, Resource, ResourceIndex
from scheduler.engine.api.types import ALLOCATED_STATUSES, PodGroupPhase, TaskStatus

if TYPE_CHECKING:
    from scheduler.engine.api.job_info import JobInfo
    from scheduler.engine.framework.session import Session

__all__ = [
    "UNLIMITED",
    "FloatRow",
    "IntMatrix",
    "IntRow",
    "JobAmounts",
    "RowMemo",
    "capability_row",
    "exceeds_on",
    "fits_on",
    "fits_scalar",
    "forget_job_amounts",
    "gated_request",
    "inqueue_uncovered",
    "job_allocated_and_request",
    "job_amounts",
    "le_all",
    "quota_dims",
    "real_capability",
    "row",
    "share",
    "slack",
    "total",
    "upper_bound",
]

IntRow = npt.NDArray[np.int64]
IntMatrix = npt.NDArray[np.int64]
FloatRow = npt.NDArray[np.float64]
Row = IntRow | FloatRow

# ``ndarray.all`` without its Python-level wrapper (these tests run per placed pod)
_all = np.logical_and.reduce

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


def real_capability(
    available: IntRow, guarantees: IntRow, guarantee: IntRow, capability: IntRow
) -> IntRow:
    """Return a queue's ``realCapability``: what the guarantees leave unreserved, plus its own.

    ``available`` is the cluster (flat) or the parent's realCapability (hierarchy), ``guarantees``
    the sum over the queue and the others it shares that with. The unreserved part is Volcano's
    ``ExceededPart``: never below zero, so guarantees adding up to more than there is leave a
    queue its own guarantee rather than less. Capped, per column, by the queue's capability.
    """
    unreserved = np.maximum(available - guarantees, 0)
    out: IntRow = np.minimum(unreserved + guarantee, capability)
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
    return bool(_all(left <= right + slack(right)))


def fits_on(left: Row, right: Row, dims: npt.NDArray[np.bool_]) -> bool:
    """Return True when ``left`` ≤ ``right`` on the columns ``dims`` (``LessEqualWithDimension``)."""
    ok = left <= right + slack(right)
    return bool(_all(ok | ~dims))


def exceeds_on(left: Row, right: Row, dims: npt.NDArray[np.bool_]) -> bool:
    """Return True when ``left`` > ``right`` on at least one column of ``dims``."""
    over = left > right + slack(right)
    return bool((over & dims).any())


def share(allocated: Row, of: Row, dims: npt.NDArray[np.bool_]) -> float:
    """Return the dominant share: max over ``dims`` of allocated / of (0 with no dims)."""
    if not dims.any():
        return 0.0
    return float(np.max(allocated[dims] / of[dims]))


_ZEROS: dict[int, IntRow] = {}


def _zeros(width: int) -> IntRow:
    """Return a shared read-only zero row of ``width`` columns."""
    found = _ZEROS.get(width)
    if found is None:
        found = np.zeros(width, dtype=np.int64)
        found.setflags(write=False)
        _ZEROS[width] = found
    return found


def gated_request(job: JobInfo, index: ResourceIndex) -> IntRow:
    """Return the summed request of the job's scheduling-gated pending tasks (do not modify it).

    Most jobs have none (``JobInfo.pending_gated``): they all get one shared read-only zero row,
    without a new array or a look at their tasks.
    """
    if not job.pending_gated:
        return _zeros(len(index))
    out: IntRow | None = None
    for task in job.task_status_index.get(TaskStatus.PENDING, {}).values():
        if task.scheduling_gated and task.resreq_vec is not None:
            if out is None:
                out = np.zeros(len(index), dtype=np.int64)
            out += task.resreq_vec
    return _zeros(len(index)) if out is None else out


class RowMemo:
    """Per-session memo of what the queue tests derive from a request or minResources row.

    ``ResourceIndex.vector`` returns one shared read-only row per distinct amount, so the row's
    identity is the key (the row is held, so its id stays unique): 10,000 jobs of one shape pay
    for one derivation, not 10,000.
    """

    __slots__ = ("_columns", "_index", "_minimums", "_reserve")

    def __init__(self, index: ResourceIndex) -> None:
        self._index = index
        self._reserve: dict[int, tuple[IntRow, IntRow]] = {}
        self._columns: dict[int, tuple[IntRow, list[int], list[int]]] = {}
        self._minimums: dict[int, tuple[Resource, IntRow, list[int], list[int], IntRow]] = {}

    @classmethod
    def shared(cls, scratch: dict[str, object], index: ResourceIndex) -> RowMemo:
        """Return the session's memo (``scratch``: ``Session.scratch``), made on first use.

        Every answer is a function of its argument, so the plugins that vote on a job (proportion,
        overcommit) share one: each job's minResources is derived once, not once per plugin.
        """
        found = scratch.get("quota.rows")
        if isinstance(found, RowMemo) and found._index is index:
            return found
        memo = scratch["quota.rows"] = cls(index)
        return memo

    def minimum(self, resource: Resource) -> tuple[IntRow, list[int], list[int]]:
        """Return a job's minResources as (row, the columns a quota test looks at, list of ints).

        Memoised per ``Resource`` object (held, so its id stays unique): the enqueue votes and
        reserves ask four times per job, and this is one lookup instead of a key and two.
        """
        found = self._minimums.get(id(resource))
        if found is None or found[0] is not resource:
            found = self._minimum_entry(resource)
        return found[1], found[2], found[3]

    def _minimum_entry(
        self, resource: Resource
    ) -> tuple[Resource, IntRow, list[int], list[int], IntRow]:
        """Derive and remember (resource, row, columns, row as ints, the row floored at 0)."""
        row = self._index.vector(resource)
        cols, values = self.columns(row)
        floored = self._reserve.get(id(row))
        if floored is None or floored[0] is not row:
            zero_floor = np.maximum(row - _zeros(len(self._index)), 0)
            zero_floor.setflags(write=False)
            floored = self._reserve[id(row)] = (row, zero_floor)
        found = self._minimums[id(resource)] = (resource, row, cols, values, floored[1])
        return found

    def columns(self, request: IntRow) -> tuple[list[int], list[int]]:
        """Return (the columns a quota test looks at, ``request`` as a list of ints).

        For the scalar form of ``fits_on`` (``fits_scalar``): the per-job enqueue votes.
        """
        found = self._columns.get(id(request))
        if found is None or found[0] is not request:
            dims = np.flatnonzero(quota_dims(self._index, request)).tolist()
            found = self._columns[id(request)] = (request, dims, request.tolist())
        return found[1], found[2]

    def reserve(self, job: JobInfo) -> IntRow:
        """Return what admitting ``job`` reserves: minResources less gated requests, floored at 0.

        ``job.min_resources`` must be set. Do not modify the result (it may be shared).
        """
        resource = job.min_resources
        assert resource is not None
        found = self._minimums.get(id(resource))  # one look-up: asked per plugin per job
        if found is None or found[0] is not resource:
            found = self._minimum_entry(resource)
        if job.pending_gated:
            reserved: IntRow = np.maximum(found[1] - gated_request(job, self._index), 0)
            return reserved
        return found[4]


def fits_scalar(wanted: Iterable[tuple[int, float]]) -> bool:
    """Return True when every (left, bound) pair has ``float(left) <= bound``.

    The scalar form of ``fits_on`` against an ``upper_bound`` for the few columns a quota test
    looks at: NumPy compares an ``int64`` amount with a ``float64`` bound by converting the
    amount to ``float64`` (round to nearest, as ``float()`` does), then comparing. ``left`` must
    be the exact ``int64`` value NumPy would have (amounts are far below 2**63).
    """
    return all(float(left) <= bound for left, bound in wanted)


def upper_bound(right: Row) -> FloatRow:
    """Return ``right`` plus the tolerance of a "≤ right" test (``le_all``, ``fits_on``).

    ``left <= upper_bound(right)`` is the same comparison those make, for a ``right`` that does
    not change (compute it once).
    """
    return np.asarray(right + slack(right), dtype=np.float64)


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


@dataclass(slots=True, eq=False)
class JobAmounts:
    """Every job's request sums as rows of ``(jobs, resources)`` matrices, row = ``position``.

    ``allocated``: tasks in allocated statuses; ``pending``: Pending tasks. Read-only: a plugin
    that keeps per-job rows copies the matrix.
    """

    position: dict[str, int]
    allocated: IntMatrix
    pending: IntMatrix


_AMOUNTS_KEY = "quota.job_amounts"


def job_amounts(ssn: Session) -> JobAmounts:
    """Return every job's allocated and pending sums, computed once for the plugins' opens.

    What ``job_allocated_and_request`` gives job by job, for all jobs at once: the tasks are
    read in one pass (a job and a request code per task), then each matrix is summed per job
    with one ``np.add.reduceat`` (exact ``int64`` sums, as the job-by-job additions). Kept in
    ``ssn.scratch`` only while the plugins open (``open_session`` drops it), since allocation
    changes the sums afterwards.
    """
    found = ssn.scratch.get(_AMOUNTS_KEY)
    if isinstance(found, JobAmounts):
        return found
    width = len(ssn.resource_index)
    codes: dict[int, int] = {}  # id(request row) -> row of ``table`` (rows are memoised)
    table: list[IntRow] = []
    owners: tuple[list[int], list[int]] = ([], [])  # (allocated, pending): job row per task
    kinds: tuple[list[int], list[int]] = ([], [])  # the same: request code per task
    position: dict[str, int] = {}
    allocated_statuses = ALLOCATED_STATUSES
    pending_status = TaskStatus.PENDING
    for i, job in enumerate(ssn.jobs.values()):
        position[job.uid] = i
        for status, tasks in job.task_status_index.items():
            if status in allocated_statuses:
                which = 0
            elif status == pending_status:
                which = 1
            else:
                continue
            owner, kind = owners[which], kinds[which]
            for task in tasks.values():
                vec = task.resreq_vec
                if vec is None:
                    continue
                code = codes.get(id(vec))
                if code is None:
                    code = codes[id(vec)] = len(table)
                    table.append(vec)
                owner.append(i)
                kind.append(code)
    requests = np.array(table, dtype=np.int64).reshape(len(table), width)
    sums = []
    for owner, kind in zip(owners, kinds, strict=True):
        out = np.zeros((len(position), width), dtype=np.int64)
        if owner:
            rows = np.array(owner, dtype=np.int64)  # non-decreasing: jobs were read in order
            starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
            out[rows[starts]] = np.add.reduceat(requests[np.array(kind)], starts, axis=0)
        sums.append(out)
    amounts = JobAmounts(position, sums[0], sums[1])
    ssn.scratch[_AMOUNTS_KEY] = amounts
    return amounts


def forget_job_amounts(ssn: Session) -> None:
    """Drop the opens' ``job_amounts`` (allocation makes them stale)."""
    ssn.scratch.pop(_AMOUNTS_KEY, None)


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
        # Per requested column, floored at 0: a column the minimum leaves at 0 gives
        # max(0 - allocated, 0) = 0 as well, since allocations are never negative (one ufunc
        # instead of three: asked for every admitted job by every quota plugin's open).
        part: IntRow = minimum - allocated
        np.maximum(part, 0, out=part)
        if not job.pending_gated:  # the common case: nothing gated to take off
            return part
        rest: IntRow = np.maximum(part - gated_request(job, index), 0)
        return rest
    return None


def total(rows: Iterable[IntRow], width: int) -> IntRow:
    """Return the sum of ``rows``."""
    out = np.zeros(width, dtype=np.int64)
    for r in rows:
        out += r
    return out
