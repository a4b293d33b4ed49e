"""Allocate action: place the pending tasks of admitted jobs, queue by queue, job by job.

Volcano's counterpart: ``pkg/scheduler/actions/allocate`` (the path without network topology).
One "round" pops the best queue and its best job and places that job's tasks into a statement
until the job is ready (gang: minMember); a ready job is committed (binds) and pushed back if it has
more tasks, a job that is only pipelined keeps its tentative placements without binding, anything
else is discarded. Queues are re-ordered after every round, so shares interleave.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from scheduler.engine.actions.allocate_nomination import allocate_from_nomination
from scheduler.engine.actions.allocate_place import all_say, place_one
from scheduler.engine.actions.allocate_sub_jobs import SubJobAllocator
from scheduler.engine.actions.allocate_topology import TopologyAllocator
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.sub_job import SubJobInfo
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import PodGroupPhase, TaskStatus
from scheduler.engine.framework import Action, ArgSpec, Session, Statement, register_action
from scheduler.engine.util.node_select import NodeSelector
from scheduler.engine.util.priority_queue import PriorityQueue, sort_tasks

__all__ = ["AllocateAction"]


@dataclass(slots=True)
class _Worksheet:
    """A job's pending tasks in task order, consumed from the front (``next``: the first left).

    The rounds read ``tasks[next]`` and advance ``next`` in place (once per task).
    """

    tasks: list[TaskInfo]
    next: int = 0
    failed_roles: set[str] = field(default_factory=set)

    def remaining(self) -> list[TaskInfo]:
        return self.tasks[self.next :]


def admit_pending_without_enqueue(ssn: Session) -> None:
    """Without an ``enqueue`` action every Pending PodGroup counts as admitted (Volcano does this)."""
    if "enqueue" in ssn.conf.actions:
        return
    for job in ssn.jobs.values():
        if job.is_pending():
            job.phase = PodGroupPhase.INQUEUE


def schedulable_jobs(ssn: Session, candidates: Iterable[JobInfo] | None = None) -> list[JobInfo]:
    """Return the admitted, valid jobs among ``candidates`` (default: every job, in uid order)."""
    jobs = []
    for job in ssn.jobs.values() if candidates is None else candidates:
        if job.is_pending() or job.queue not in ssn.queues:
            continue
        if ssn.job_valid(job) is not None:
            continue
        jobs.append(job)
    return jobs


def any_says(fns: list[Callable[..., bool]], *args: object) -> bool:
    """Return True when some function of ``fns`` says yes (``dispatch.any_true``, flat)."""
    for fn in fns:  # noqa: SIM110 - cheaper than any() over a generator
        if fn(*args):
            return True
    return False


def need_continue(job: JobInfo, worksheet: _Worksheet) -> bool:
    """Return True when a task that did not fit should not end the job's round (Volcano's rule)."""
    if job.min_available == len(job.tasks):
        return False
    roles_min = sum(job.task_min_available.values())
    if roles_min > job.min_available:
        pending_ok = sum(1 for t in worksheet.remaining() if t.role not in worksheet.failed_roles)
        return job.ready_task_num() + pending_ok >= job.min_available
    for role in worksheet.failed_roles:
        need = job.task_min_available.get(role, 0)
        if need > 0:
            placed = sum(
                1 for t in job.tasks.values() if t.role == role and t.status == TaskStatus.ALLOCATED
            )
            if placed < need:
                return False
    return True


def _nominated_default(job: JobInfo) -> SubJobInfo | None:
    """Return the job's default sub-job when a preempting action nominated a HyperNode for it
    (jobs without a subGroupPolicy; sub-jobs exist only once something asked for them)."""
    if job.sub_jobs is None or job.sub_group_policy:
        return None
    default = job.sub_jobs.get(job.uid)
    return default if default is not None and default.nominated_hypernode else None


@register_action
class AllocateAction(Action):
    """Places pending tasks of Inqueue jobs on nodes, all-or-nothing per job round."""

    name = "allocate"
    arguments_schema = (ArgSpec("predicateErrorCacheEnable", bool, True),)

    def execute(self, ssn: Session) -> None:
        """Run allocate's steps on ``ssn``."""
        role_cache = ssn.action_arguments(self.name).get_bool("predicateErrorCacheEnable")
        selector = NodeSelector.of(ssn)
        pre_filters = ssn.has_fns("pre_predicate")  # none in the usual confs: skip the calls
        # 1. Admit Pending jobs when there is no enqueue action.
        admit_pending_without_enqueue(ssn)
        # 2. Worksheets of pending tasks; queues and jobs in priority queues.
        queues: PriorityQueue[QueueInfo] = PriorityQueue(
            ssn.queue_order_cmp, key=ssn.queue_order_key()
        )
        jobs_by_queue: dict[str, PriorityQueue[JobInfo]] = {}
        job_key = ssn.job_order_key()
        sheets: dict[str, _Worksheet] = {}
        members: dict[str, list[JobInfo]] = {}  # queue -> its jobs, in uid order
        for job in schedulable_jobs(ssn):
            bucket = job.task_status_index.get(TaskStatus.PENDING)
            if not bucket:
                continue
            if job.pending_best_effort or job.pending_gated:
                pending = [
                    t for t in bucket.values() if not t.best_effort and not t.scheduling_gated
                ]
                if not pending:
                    continue
            else:  # the job's counters say every Pending task is placeable
                pending = list(bucket.values())
            sheets[job.uid] = _Worksheet(pending if len(pending) < 2 else sort_tasks(ssn, pending))
            if job.queue not in jobs_by_queue:
                jobs_by_queue[job.queue] = PriorityQueue(ssn.job_order_cmp, key=job_key)
                members[job.queue] = []
                queues.push(ssn.queues[job.queue])
            members[job.queue].append(job)
        for name, queued in members.items():  # one heapify per queue instead of a push per job
            jobs_by_queue[name].push_all(queued)
        # 3. Rounds: best queue, its best job, that job's tasks into one statement.
        # (Overused asked here through the session's cached list of functions: once per round.)
        overused_fns = ssn.flat_fns("overused")
        fns = (ssn.flat_fns("allocatable"), ssn.flat_fns("job_ready"))
        allocate_job = self._allocate_job
        # Jobs with a networkTopology take the HyperNode path (``allocate_topology.py``).
        topology = (
            None
            if ssn.hypernodes is None
            else TopologyAllocator(ssn, ssn.hypernodes, selector, role_cache, fns)
        )
        # Jobs with a subGroupPolicy take the sub-job path (``allocate_sub_jobs.py``).
        sub_jobs = SubJobAllocator(ssn, ssn.hypernodes, selector, role_cache, fns)
        while queues:
            queue = queues.pop()
            if any_says(overused_fns, queue):
                continue
            jobs = jobs_by_queue[queue.name]
            if not jobs:
                continue
            job = jobs.pop()
            sheet = sheets[job.uid]
            nominated = _nominated_default(job)
            stmt = None
            if job.sub_group_policy:
                stmt, ready = sub_jobs.allocate(queue, job, sheet)
            elif topology is not None and job.network_topology is not None:
                stmt, ready = topology.allocate(queue, job, sheet)
            else:
                if nominated is not None:  # a preempting action's pin first (Volcano's order)
                    stmt = allocate_from_nomination(
                        ssn, ssn.hypernodes, selector, fns[0], queue, nominated, sheet
                    )
                    ready = stmt is not None and all_say(fns[1], job)
                if stmt is None:
                    stmt, ready = allocate_job(
                        ssn, selector, queue, job, sheet, role_cache, pre_filters, fns
                    )
            # 4. Commit a ready job; push it back if it has more to place.
            if stmt is not None and ready:
                stmt.commit()
                if nominated is not None:  # the nomination is redeemed
                    nominated.nominated_hypernode = ""
                if sheet.next < len(sheet.tasks):
                    jobs.push(job)
            queues.push(queue)

    @staticmethod
    def _allocate_job(
        ssn: Session,
        selector: NodeSelector,
        queue: QueueInfo,
        job: JobInfo,
        sheet: _Worksheet,
        role_cache: bool,
        pre_filters: bool = True,
        fns: tuple[list[Callable[..., bool]], list[Callable[..., bool]]] | None = None,
    ) -> tuple[Statement | None, bool]:
        """Return the statement of one job round (None when discarded) and whether the job is ready.

        JobReady is asked once per placement and its last answer reused: a task that does not fit
        changes nothing JobReady reads. (Allocatable and JobReady are asked through the session's
        cached lists of functions, as ``Session.allocatable`` and ``Session.job_ready`` do; ``fns``
        holds the two lists when the caller looked them up once for all rounds.)
        """
        stmt = Statement(ssn)
        if fns is None:
            fns = (ssn.flat_fns("allocatable"), ssn.flat_fns("job_ready"))
        allocatable_fns, ready_fns = fns
        ready: bool | None = None  # JobReady after the last placement (None: not asked yet)
        tasks = sheet.tasks
        while sheet.next < len(tasks):
            task = tasks[sheet.next]
            sheet.next += 1
            if not all_say(allocatable_fns, queue, task):
                continue
            if role_cache and task.role and task.role in sheet.failed_roles:
                continue
            placed = place_one(
                ssn, selector, stmt, job, sheet.failed_roles, task, selector.select, pre_filters
            )
            if placed is None:
                if need_continue(job, sheet):
                    continue
                break
            ready = all_say(ready_fns, job)
            if ready:
                break
        if ready is None:
            ready = all_say(ready_fns, job)
        if ready or ssn.job_pipelined(job):
            return stmt, ready
        stmt.discard()
        return None, False
