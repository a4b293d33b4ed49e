"""Sub-jobs: a job's pods split by its PodGroup's ``spec.subGroupPolicy``.

Volcano's counterpart: ``pkg/scheduler/api/sub_job_info.go`` and the sub-job parts of
``job_info.go``. Each policy groups the pods its ``labelSelector`` accepts by the values of its
``matchLabelKeys`` (one sub-job per distinct value list, e.g. one per ``volcano.sh/partition-id``);
a sub-job is gang-scheduled on its own (``subGroupSize`` pods, its own ``networkTopology``), and
the job needs ``minSubGroups`` ready sub-jobs of each policy. Pods no policy claims belong to the
job's default sub-job, which carries the job's own networkTopology (and, for a job without any
policy, the job's minMember: the whole job as one sub-job).

Sub-jobs are built from the job's tasks on first use (``sub_jobs_of``) and kept on the job for
the session, so a preempting action can leave a ``nominated_hypernode`` on one for allocate.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from scheduler.engine.api.hypernode import HARD, SOFT, NetworkTopology
from scheduler.engine.api.types import ALLOCATED_STATUSES, TaskStatus

if TYPE_CHECKING:
    from scheduler.engine.api.job_info import JobInfo
    from scheduler.engine.api.pdb_info import PdbSelector
    from scheduler.engine.api.task_info import TaskInfo

__all__ = [
    "SubGroupPolicy",
    "SubJobInfo",
    "check_sub_jobs",
    "default_sub_job_id",
    "min_sub_jobs",
    "sub_job_of",
    "sub_jobs_of",
]

_READY = frozenset(
    {
        TaskStatus.BOUND,
        TaskStatus.BINDING,
        TaskStatus.RUNNING,
        TaskStatus.ALLOCATED,
        TaskStatus.SUCCEEDED,
    }
)
_ALLOCATED = frozenset(ALLOCATED_STATUSES)
_MAX_ID = 128  # longer value lists are hashed into the sub-job id (as Volcano does)


@dataclass(frozen=True, slots=True)
class SubGroupPolicy:
    """One ``spec.subGroupPolicy[i]`` of a PodGroup."""

    name: str
    sub_group_size: int = 1
    min_sub_groups: int = 0
    match_label_keys: tuple[str, ...] = ()
    label_selector: PdbSelector | None = None
    network_topology: NetworkTopology | None = None

    def match_values(self, labels: Mapping[str, str]) -> list[str] | None:
        """Return the values of ``matchLabelKeys`` on a pod with ``labels``; None when the pod
        is not this policy's (selector refuses it, a key is missing or empty). An empty list
        (no keys) claims nothing either: such pods fall to the default sub-job."""
        if self.label_selector is not None and not self.label_selector.matches(labels):
            return None
        values = []
        for key in self.match_label_keys:
            value = labels.get(key, "")
            if not value:
                return None
            values.append(value)
        return values


@dataclass(slots=True, eq=False)
class SubJobInfo:
    """One sub-job: its tasks, its gang size and its place in the network topology."""

    gid: str  # the policy's group: ``<job uid>/<policy name>`` (the job uid for the default)
    uid: str
    job: str
    min_available: int = 1
    match_index: int = 0  # the first match value as a number (orders sub-jobs), else 0
    network_topology: NetworkTopology | None = None
    tasks: dict[str, TaskInfo] = field(default_factory=dict)
    # The HyperNode the sub-job's placed pods are in (session state, as the job's own).
    allocated_hypernode: str = ""
    # The HyperNode a preempting action freed for this sub-job: allocate tries the tasks'
    # nominated nodes in it first and clears it once the job commits (or when it misses).
    nominated_hypernode: str = ""

    def count(self, statuses: frozenset[TaskStatus]) -> int:
        """Return how many of the sub-job's tasks are in ``statuses``."""
        return sum(1 for t in self.tasks.values() if t.status in statuses)

    def ready_task_num(self) -> int:
        """Return Bound + Binding + Running + Allocated + Succeeded tasks."""
        return self.count(_READY)

    def _placed(self, pipelined: bool) -> int:
        """Return the ready tasks (and pipelined ones if ``pipelined``) plus the pending
        BestEffort ones, in one pass (asked after every placement)."""
        total = 0
        for task in self.tasks.values():
            status = task.status
            if (
                status in _READY
                or (pipelined and status == TaskStatus.PIPELINED)
                or (status == TaskStatus.PENDING and task.best_effort)
            ):
                total += 1
        return total

    def is_ready(self) -> bool:
        """Return True when ready (and pending BestEffort) tasks reach the sub-job's size."""
        return self._placed(False) >= self.min_available

    def is_pipelined(self) -> bool:
        """Return True when pipelined + ready (+ pending BestEffort) tasks reach its size."""
        return self._placed(True) >= self.min_available

    def allocated_task_num(self) -> int:
        return self.count(_ALLOCATED)

    def pending(self) -> list[TaskInfo]:
        return [t for t in self.tasks.values() if t.status == TaskStatus.PENDING]

    def hard_tier(self) -> int | None:
        """Return the highest tier a hard-topology sub-job may span, or None."""
        spec = self.network_topology
        if spec is None or spec.mode != HARD:
            return None
        return spec.highest_tier_allowed

    @property
    def is_soft(self) -> bool:
        return self.network_topology is not None and self.network_topology.mode == SOFT


def default_sub_job_id(job: JobInfo) -> str:
    """Return the id of the job's default sub-job (the job's uid, as in Volcano)."""
    return job.uid


def _sub_job_id(job: JobInfo, policy: str, values: list[str]) -> str:
    joined = "-".join(values)
    if len(joined) > _MAX_ID:
        joined = format(zlib.crc32(joined.encode()), "x")
    return f"{job.uid}/{policy}-{joined}"


def _default(job: JobInfo) -> SubJobInfo:
    size = 1 if job.sub_group_policy else job.min_available
    return SubJobInfo(
        gid=job.uid,
        uid=default_sub_job_id(job),
        job=job.uid,
        min_available=size,
        network_topology=job.network_topology,
    )


def _build(job: JobInfo) -> dict[str, SubJobInfo]:
    sub_jobs: dict[str, SubJobInfo] = {}
    for task in sorted(job.tasks.values(), key=lambda t: t.uid):
        sub = _claim(job, task, sub_jobs)
        sub.tasks[task.uid] = task
    return sub_jobs


def _claim(job: JobInfo, task: TaskInfo, sub_jobs: dict[str, SubJobInfo]) -> SubJobInfo:
    labels = task.labels
    for policy in job.sub_group_policy:
        values = policy.match_values(labels)
        if not values:
            continue
        uid = _sub_job_id(job, policy.name, values)
        sub = sub_jobs.get(uid)
        if sub is None:
            index = int(values[0]) if values[0].lstrip("-").isdigit() else 0
            sub = sub_jobs[uid] = SubJobInfo(
                gid=f"{job.uid}/{policy.name}",
                uid=uid,
                job=job.uid,
                min_available=policy.sub_group_size,
                match_index=index,
                network_topology=policy.network_topology,
            )
        return sub
    uid = default_sub_job_id(job)
    sub = sub_jobs.get(uid)
    if sub is None:
        sub = sub_jobs[uid] = _default(job)
    return sub


def sub_jobs_of(job: JobInfo) -> dict[str, SubJobInfo]:
    """Return the job's sub-jobs (built on first use, rebuilt if its tasks changed)."""
    cached = job.sub_jobs
    if cached is not None and sum(len(s.tasks) for s in cached.values()) == len(job.tasks):
        return cached
    built = _build(job)
    if cached:  # keep the session state of sub-jobs that survive the rebuild
        for uid, sub in built.items():
            old = cached.get(uid)
            if old is not None:
                sub.allocated_hypernode = old.allocated_hypernode
                sub.nominated_hypernode = old.nominated_hypernode
                sub.network_topology = old.network_topology
    job.sub_jobs = built
    return built


def sub_job_of(job: JobInfo, task: TaskInfo) -> SubJobInfo | None:
    """Return the sub-job holding ``task``."""
    for sub in sub_jobs_of(job).values():
        if task.uid in sub.tasks:
            return sub
    return None


def min_sub_jobs(job: JobInfo) -> dict[str, int]:
    """Return ``minSubGroups`` per policy group of the job."""
    return {f"{job.uid}/{p.name}": p.min_sub_groups for p in job.sub_group_policy}


def check_sub_jobs(job: JobInfo, ready: bool | None) -> bool:
    """Return whether every policy has ``minSubGroups`` sub-jobs that exist (``ready`` None:
    Volcano's CheckSubJobValid), are ready (True) or are pipelined (False)."""
    if not job.sub_group_policy:
        return True
    counts: dict[str, int] = {}
    for sub in sub_jobs_of(job).values():
        if ready is None or (sub.is_ready() if ready else sub.is_pipelined()):
            counts[sub.gid] = counts.get(sub.gid, 0) + 1
    return all(counts.get(gid, 0) >= need for gid, need in min_sub_jobs(job).items())
