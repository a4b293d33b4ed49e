"""A job: a PodGroup and its tasks, with the counters gang scheduling reads.

Volcano's counterpart: ``pkg/scheduler/api/job_info.go``. Tasks are indexed by status so the
counters JobReady / JobPipelined / JobStarving read (called after every placement) cost O(1);
only the per-role checks walk the tasks, and only for jobs that set ``minTaskMember``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from scheduler.engine.api.hypernode import NetworkTopology
from scheduler.engine.api.resource import Resource
from scheduler.engine.api.sub_job import SubGroupPolicy, SubJobInfo
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import (
    ALLOCATED_STATUSES,
    PodGroupCondition,
    PodGroupPhase,
    TaskStatus,
)

__all__ = ["JobInfo"]

_READY = (
    TaskStatus.BOUND,
    TaskStatus.BINDING,
    TaskStatus.RUNNING,
    TaskStatus.ALLOCATED,
    TaskStatus.SUCCEEDED,
)
_VALID = (*_READY, TaskStatus.PIPELINED, TaskStatus.PENDING)
_INVALID = tuple(s for s in TaskStatus if s not in _VALID)
_READY_SET = frozenset(_READY)


@dataclass(slots=True, eq=False)
class JobInfo:
    """One PodGroup with its tasks. ``uid`` is ``<namespace>/<podgroup name>``."""

    name: str
    namespace: str
    queue: str = "default"
    min_available: int = 1
    task_min_available: dict[str, int] = field(default_factory=dict)
    min_resources: Resource | None = None
    priority_class_name: str = ""
    priority: int = 0
    creation_timestamp: datetime | None = None
    phase: PodGroupPhase = PodGroupPhase.PENDING
    conditions: list[PodGroupCondition] = field(default_factory=list)
    annotations: dict[str, str] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)  # the PodGroup's (volcano.sh/preemptable)
    uid: str = ""
    tasks: dict[str, TaskInfo] = field(default_factory=dict)
    task_status_index: dict[TaskStatus, dict[str, TaskInfo]] = field(default_factory=dict)
    pending_best_effort: int = 0
    pending_gated: int = 0  # Pending tasks with scheduling gates (their requests are not reserved)
    ready_num: int = 0  # tasks in the ``_READY`` statuses (``ready_task_num``), kept by the index
    # Why each task did not fit in this session (task uid -> reason), and the job-level reason.
    fit_errors: dict[str, str] = field(default_factory=dict)
    job_fit_error: str = ""
    # ``spec.minResources`` as the PodGroup spells them, quota names (``requests.cpu``,
    # ``count/pods``) included: what resourcequota compares with a ResourceQuota's status.
    # None: the same as ``min_resources``.
    quota_min_resources: Resource | None = None
    # ``spec.networkTopology`` (None: none). The session may rewrite it (soft -> hard at the top
    # tier, a tier name -> its tier), as Volcano adjusts its copy at session open.
    network_topology: NetworkTopology | None = None
    # The HyperNode the job's placed pods are in (session state; "" = none): recovered at
    # session open from its allocated pods, widened by allocate (Volcano's AllocatedHyperNode).
    allocated_hypernode: str = ""
    # ``spec.subGroupPolicy`` (``api/sub_job.py``), and the sub-jobs built from it and the tasks
    # on first use (None: not built yet; ``sub_jobs_of``).
    sub_group_policy: tuple[SubGroupPolicy, ...] = ()
    sub_jobs: dict[str, SubJobInfo] | None = None

    def __post_init__(self) -> None:
        if not self.uid:
            self.uid = f"{self.namespace}/{self.name}"
        tasks, self.tasks = self.tasks, {}
        for task in tasks.values():
            self.add_task(task)

    # --- membership and status -------------------------------------------------------------
    def add_task(self, task: TaskInfo) -> None:
        """Add ``task`` to the job and its status index (replacing a task of the same uid)."""
        task.job = self.uid
        previous = self.tasks.get(task.uid)
        if previous is not None:  # keep the counters equal to the buckets
            bucket = self.task_status_index.get(previous.status)
            if bucket is not None and bucket.pop(previous.uid, None) is not None:
                if previous.status in _READY_SET:
                    self.ready_num -= 1
                elif previous.status == TaskStatus.PENDING:
                    self.pending_best_effort -= previous.best_effort
                    self.pending_gated -= previous.scheduling_gated
        self.tasks[task.uid] = task
        self.task_status_index.setdefault(task.status, {})[task.uid] = task
        if task.status in _READY_SET:
            self.ready_num += 1
        if task.status == TaskStatus.PENDING:
            self.pending_best_effort += task.best_effort
            self.pending_gated += task.scheduling_gated

    def update_task_status(self, task: TaskInfo, status: TaskStatus) -> None:
        """Move ``task`` to ``status``, keeping the index and counters right."""
        old = task.status
        if old == status:
            return
        bucket = self.task_status_index.get(old)
        if bucket is not None:
            bucket.pop(task.uid, None)
        if old == TaskStatus.PENDING:
            self.pending_best_effort -= task.best_effort
            self.pending_gated -= task.scheduling_gated
        elif old in _READY_SET:
            self.ready_num -= 1
        task.status = status
        target = self.task_status_index.get(status)  # (setdefault would build a dict per call)
        if target is None:
            target = self.task_status_index[status] = {}
        target[task.uid] = task
        if status in _READY_SET:
            self.ready_num += 1
        elif status == TaskStatus.PENDING:
            self.pending_best_effort += task.best_effort
            self.pending_gated += task.scheduling_gated

    def count(self, *statuses: TaskStatus) -> int:
        """Return how many tasks are in any of ``statuses``."""
        get = self.task_status_index.get  # a plain loop: asked several times per job
        total = 0
        for status in statuses:
            bucket = get(status)
            if bucket:
                total += len(bucket)
        return total

    def tasks_in(self, *statuses: TaskStatus) -> list[TaskInfo]:
        """Return the tasks in any of ``statuses``."""
        out: list[TaskInfo] = []
        for s in statuses:
            out.extend(self.task_status_index.get(s, {}).values())
        return out

    # --- Volcano's counters ----------------------------------------------------------------
    def ready_task_num(self) -> int:
        """Return Bound + Binding + Running + Allocated + Succeeded (a counter the index keeps)."""
        return self.ready_num

    def waiting_task_num(self) -> int:
        """Return the Pipelined count."""
        return self.count(TaskStatus.PIPELINED)

    def releasing_scheduled_task_num(self) -> int:
        """Return the Releasing tasks that were placed on a node (terminating there)."""
        return sum(1 for task in self.tasks_in(TaskStatus.RELEASING) if task.node_name)

    def releasing_keeps_gang(self) -> bool:
        """Return whether the job is short of ready tasks only because members are terminating
        on their nodes (Volcano's gang ``shouldSkipUnschedulableForReleasing``).

        Such a job gets no Unschedulable condition, so its PodGroup stays Running while a member
        runs out its grace period. A Pending or Pipelined replacement still needs the
        condition, and a Releasing task that was never placed does not count.
        """
        releasing = self.releasing_scheduled_task_num()
        if not releasing or self.count(TaskStatus.PENDING, TaskStatus.PIPELINED):
            return False
        return self.ready_task_num() + releasing >= self.min_available

    def valid_task_num(self) -> int:
        """Return tasks that are allocated, succeeded, pipelined or pending.

        Every task is in exactly one bucket of the status index, so that is all tasks less the
        few statuses outside ``_VALID`` (three lookups instead of seven; JobValid asks per action).
        """
        return len(self.tasks) - self.count(*_INVALID)

    def is_ready(self) -> bool:
        """Return True when ready + pending BestEffort tasks reach minAvailable."""
        return self.ready_num + self.pending_best_effort >= self.min_available

    def is_pipelined(self) -> bool:
        """Return True when waiting + ready + pending BestEffort tasks reach minAvailable."""
        return (
            self.waiting_task_num() + self.ready_task_num() + self.pending_best_effort
            >= self.min_available
        )

    def is_starving(self) -> bool:
        """Return True when waiting + ready tasks are below minAvailable."""
        return self.waiting_task_num() + self.ready_task_num() < self.min_available

    def is_pending(self) -> bool:
        """Return True when the PodGroup has not been admitted (phase Pending)."""
        return self.phase == PodGroupPhase.PENDING

    # --- per-role (minTaskMember) checks ----------------------------------------------------
    def _roles_apply(self) -> bool:
        return bool(self.task_min_available) and self.min_available >= sum(
            self.task_min_available.values()
        )

    def _role_counts(
        self, statuses: Iterable[TaskStatus], *, best_effort_pending: bool
    ) -> Counter[str]:
        wanted = set(statuses)
        counts: Counter[str] = Counter()
        for task in self.tasks.values():
            if task.status in wanted or (
                best_effort_pending and task.status == TaskStatus.PENDING and task.best_effort
            ):
                counts[task.role] += 1
        return counts

    def _roles_meet(self, counts: Counter[str]) -> bool:
        return all(counts[role] >= need for role, need in self.task_min_available.items())

    def check_task_valid(self) -> bool:
        """Return True when each role has enough valid tasks for its minimum."""
        if not self._roles_apply():
            return True
        return self._roles_meet(self._role_counts(_VALID, best_effort_pending=False))

    def check_task_ready(self) -> bool:
        """Return True when each role has enough allocated (or BestEffort pending) tasks."""
        if not self._roles_apply():
            return True
        statuses = (*ALLOCATED_STATUSES, TaskStatus.SUCCEEDED)
        return self._roles_meet(self._role_counts(statuses, best_effort_pending=True))

    def check_task_pipelined(self) -> bool:
        """Return True when each role has enough allocated or pipelined tasks."""
        if not self._roles_apply():
            return True
        statuses = (*ALLOCATED_STATUSES, TaskStatus.SUCCEEDED, TaskStatus.PIPELINED)
        return self._roles_meet(self._role_counts(statuses, best_effort_pending=True))

    # --- resources --------------------------------------------------------------------------
    def allocated(self) -> Resource:
        """Return the summed request of tasks in allocated statuses."""
        total = Resource()
        for task in self.tasks_in(*ALLOCATED_STATUSES):
            total = total + task.resreq
        return total

    def total_request(self) -> Resource:
        """Return the summed request of all tasks."""
        total = Resource()
        for task in self.tasks.values():
            total = total + task.resreq
        return total

    def __repr__(self) -> str:
        return f"JobInfo({self.uid}, queue={self.queue}, phase={self.phase})"
