"""Overcommit plugin: admit jobs while the cluster, inflated by a factor, can hold their minimum.

Volcano's counterpart: ``pkg/scheduler/plugins/overcommit``. Enqueue asks it whether a PodGroup's
``minResources`` fit in (cluster total x ``overcommit-factor``) - what the nodes already hold,
after what jobs admitted earlier still hold in reserve. The factor (default 1.2) lets the queue of
admitted jobs run slightly ahead of the cluster, so allocate always has work when pods finish.
"""

from __future__ import annotations

import numpy as np

from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.types import ALLOCATED_STATUSES, PERMIT, REJECT, PodGroupPhase
from scheduler.engine.framework import ArgSpec, Plugin, Session, register_plugin
from scheduler.engine.util import quota

__all__ = ["DEFAULT_FACTOR", "OvercommitPlugin"]

DEFAULT_FACTOR = 1.2


@register_plugin
class OvercommitPlugin(Plugin):
    """Enqueue vote: minResources against the over-committed idle resources of the cluster."""

    name = "overcommit"
    arguments_schema = (
        ArgSpec("overcommit-factor", float, DEFAULT_FACTOR, help="values below 1.0 mean 1.2"),
    )

    def on_session_open(self, ssn: Session) -> None:
        """Compute idle and reserved resources; register the enqueue vote and its callback."""
        self._ssn = ssn
        index = self._index = ssn.resource_index
        factor = self.arguments.get_float("overcommit-factor")
        self.factor = factor if factor >= 1.0 else DEFAULT_FACTOR
        # 1. Idle = total x factor - used (may go negative).
        arrays = ssn.arrays
        total = arrays.allocatable.sum(axis=0).astype(np.float64)
        self.idle = total * self.factor - arrays.used.sum(axis=0)
        # 2. Reserved by admitted jobs: Inqueue ones fully, Running ones for what is uncovered.
        self.inqueue = np.zeros(len(index), dtype=np.int64)
        self._rows = quota.RowMemo.shared(ssn.scratch, index)
        amounts = None  # every job's allocated sums, read once for all jobs (shared with drf)
        for job in ssn.jobs.values():
            if job.min_resources is None:
                continue
            if job.phase == PodGroupPhase.INQUEUE:
                self._reserve(job)
            elif (
                job.phase == PodGroupPhase.RUNNING
                and job.count(*ALLOCATED_STATUSES) >= job.min_available
            ):
                if amounts is None:
                    amounts = quota.job_amounts(ssn)
                allocated = amounts.allocated[amounts.position[job.uid]]
                uncovered = quota.inqueue_uncovered(job, index, allocated)
                if uncovered is not None:
                    self.inqueue += uncovered
        # 3. Per session: the bound a job's minResources are compared with, and per-row memos.
        self._idle_upper: list[float] = quota.upper_bound(self.idle).tolist()
        ssn.add_job_enqueueable_fn(self.name, self._enqueueable)
        ssn.add_job_enqueued_fn(self.name, self._reserve)

    def _reserve(self, job: JobInfo) -> None:
        """Add ``job``'s minResources (less its gated tasks) to what is held in reserve."""
        if job.min_resources is None:
            return
        self.inqueue += self._rows.reserve(job)

    def _enqueueable(self, job: JobInfo) -> int:
        """Permit when reserve + the job's minResources fit the over-committed idle resources."""
        if job.min_resources is None:
            return PERMIT
        # quota.fits_on(inqueue + minimum, idle, dims), on the requested columns only, in
        # Python scalars (asked once per Pending job)
        _, cols, minimum = self._rows.minimum(job.min_resources)
        inqueue, upper = self.inqueue.tolist(), self._idle_upper
        for c in cols:  # (see quota.fits_scalar for why float(int) <= bound is NumPy's test)
            if not float(inqueue[c] + minimum[c]) <= upper[c]:
                return REJECT
        return PERMIT
