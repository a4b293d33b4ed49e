"""Preempt action: a starving job evicts lower-priority tasks of its own queue.

Volcano's counterpart: ``pkg/scheduler/actions/preempt`` (normal mode). Preemption never crosses
queues (that is reclaim's job). First between jobs: each starving job, best first, takes its
pending tasks in order and, for each, walks the nodes by descending score; on a node the plugins
name the victims among the other jobs' running tasks (``Preemptable``), which are evicted in
victim order until the task fits, and the task is pipelined onto the freed room. The job's
evictions become real only if the job is then pipelined (gang); otherwise all are undone. Then
within jobs: a starving job's pending task may evict lower-priority tasks of the same job.

With ``enableTopologyAwarePreemption: true`` (a ``configurations`` argument of preempt) the node
is chosen among several candidates by the harm its victims do instead (``preempt_topology.py``);
``topologyAwarePreemptWorkerNum`` is accepted and ignored (one thread here).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from functools import cmp_to_key

from scheduler.engine.actions.preempt_topology import CandidateWindow, preempt_on_best_candidate
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import TaskStatus
from scheduler.engine.framework import Action, ArgSpec, Session, Statement, register_action
from scheduler.engine.util.eviction import EvictionContext, victim_order
from scheduler.engine.util.priority_queue import PriorityQueue, sort_tasks

__all__ = ["REASON", "PreemptAction", "preemptor_jobs"]

REASON = "preempt"
_HOLDING = (TaskStatus.BOUND, TaskStatus.RUNNING)


def pending_tasks(ssn: Session, job: JobInfo) -> deque[TaskInfo]:
    """Return the job's pending, ungated tasks in task order (not those whose bind failed in
    this session: the next session retries them, as Volcano's resync does)."""
    failed = ssn.decisions.bind_errors
    tasks = [
        t
        for t in job.tasks_in(TaskStatus.PENDING)
        if not t.scheduling_gated and t.uid not in failed
    ]
    return deque(sort_tasks(ssn, tasks))


def preemptor_jobs(ssn: Session) -> dict[str, list[JobInfo]]:
    """Return, per queue, the admitted, valid, starving jobs (uid order).

    Jobs with a networkTopology never preempt (Volcano does not support it yet).
    """
    out: dict[str, list[JobInfo]] = {}
    for uid in sorted(ssn.jobs):
        job = ssn.jobs[uid]
        if job.is_pending() or job.queue not in ssn.queues:
            continue
        if job.network_topology is not None:
            continue
        if ssn.job_valid(job) is not None or not ssn.job_starving(job):
            continue
        out.setdefault(job.queue, []).append(job)
    return out


@register_action
class PreemptAction(Action):
    """Evicts lower-priority tasks in the same queue for starving jobs."""

    name = "preempt"
    arguments_schema = (
        ArgSpec("predicateErrorCacheEnable", bool, True),
        ArgSpec("enableTopologyAwarePreemption", bool, False),
        ArgSpec("topologyAwarePreemptWorkerNum", int, 16),
        ArgSpec("minCandidateNodesPercentage", int, 10),
        ArgSpec("minCandidateNodesAbsolute", int, 1),
        ArgSpec("maxCandidateNodesAbsolute", int, 100),
    )

    def execute(self, ssn: Session) -> None:
        """Run preempt's steps on ``ssn``."""
        ctx = EvictionContext(ssn)
        arguments = ssn.action_arguments(self.name)
        if arguments.get_bool("enableTopologyAwarePreemption"):
            ctx.window = CandidateWindow.of(arguments)
        # 1. Starving jobs per queue; queues in queue order.
        starving = preemptor_jobs(ssn)
        queues = sorted(
            (ssn.queues[name] for name in starving),
            key=cmp_to_key(ssn.queue_order_cmp),
        )
        for queue in queues:
            # 2. Between jobs of the queue.
            self._between_jobs(ssn, ctx, queue, starving[queue.name])
            # 3. Within each starving job.
            for job in starving[queue.name]:
                self._within_job(ssn, ctx, queue, job)

    def _between_jobs(
        self, ssn: Session, ctx: EvictionContext, queue: QueueInfo, jobs: list[JobInfo]
    ) -> None:
        order: PriorityQueue[JobInfo] = PriorityQueue(ssn.job_order_cmp, jobs)
        tasks = {job.uid: pending_tasks(ssn, job) for job in jobs}
        while not order.empty():
            job = order.pop()
            stmt = ssn.statement()
            assigned = False
            todo = tasks[job.uid]
            while todo and ssn.job_starving(job):
                task = todo.popleft()

                def other_job(victim: TaskInfo, _job: JobInfo = job) -> bool:
                    owner = ssn.jobs.get(victim.job)
                    return owner is not None and owner.queue == queue.name and owner is not _job

                if preempt(ssn, ctx, stmt, queue, task, other_job):
                    assigned = True
            if ssn.job_pipelined(job):
                ctx.touched(stmt)
                stmt.commit()
            else:
                ctx.discard(stmt)
                continue
            if assigned:
                order.push(job)

    @staticmethod
    def _within_job(ssn: Session, ctx: EvictionContext, queue: QueueInfo, job: JobInfo) -> None:
        for task in pending_tasks(ssn, job):
            stmt = ssn.statement()
            if preempt(ssn, ctx, stmt, queue, task, lambda victim: victim.job == job.uid):
                ctx.touched(stmt)
                stmt.commit()
            else:
                ctx.discard(stmt)
                break


def _eligible(ssn: Session, task: TaskInfo) -> bool:
    """Return False for a pod that may not preempt, or that waits for its nominated node."""
    if task.preemption_policy == "Never":
        return False
    node = ssn.nodes.get(task.nominated_node_name) if task.nominated_node_name else None
    if node is not None and task.resreq_vec is not None:
        fits = bool((task.resreq_vec <= ssn.arrays.future_idle[node.index]).all())
        releasing = any(t.status == TaskStatus.RELEASING for t in node.tasks.values())
        if fits or releasing:
            return False
    return ssn.pre_predicate_fn(task) is None


def preempt(
    ssn: Session,
    ctx: EvictionContext,
    stmt: Statement,
    queue: QueueInfo,
    task: TaskInfo,
    allowed: Callable[[TaskInfo], bool],
) -> bool:
    """Try to make room for ``task`` on one node by evicting victims; return True on success.

    ``allowed`` narrows the candidates (other jobs of the queue, or the same job); status, the
    BestEffort rule and the pod's preemptable flag are checked here.
    """
    if not _eligible(ssn, task) or task.resreq_vec is None:
        return False
    request = task.resreq_vec
    arrays = ssn.arrays
    rows = ctx.candidate_rows(task, ctx.preempt_bound(queue.name))

    def fits(row: int) -> bool:
        return (
            ssn.allocatable(queue, task)
            and bool((request <= arrays.future_idle[row]).all())
            and ssn.predicate_fn(task, ssn.node_list[row]) is None
        )

    def victims_on(row: int) -> list[TaskInfo]:
        node = ssn.node_list[row]
        candidates = [
            t
            for t in node.tasks.values()
            if t.status in _HOLDING
            and t.preemptable
            and (t.best_effort or not task.best_effort)
            and allowed(t)
        ]
        if not candidates:
            return []
        victims = ssn.preemptable(task, candidates)
        return victims if ctx.covers(node, victims, request) else []

    if ctx.window is not None:
        return preempt_on_best_candidate(
            ssn, ctx, stmt, task, rows.tolist(), victims_on, fits, ctx.window, REASON
        )
    for row in ctx.by_score(task, rows):
        node = ssn.node_list[row]
        victims = victims_on(row)
        if not victims:
            continue
        on_node = ssn.statement()
        for victim in victim_order(ssn, victims, task):
            if fits(row):
                break
            on_node.evict(victim, REASON, preemptor=task.uid)
        if fits(row):
            on_node.pipeline(task, node)
            ctx.touched(on_node)
            stmt.merge(on_node)
            return True
        ctx.discard(on_node)
    return False
