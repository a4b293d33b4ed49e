"""Reclaim action: a starving job takes back resources that other queues borrowed.

Volcano's counterpart: ``pkg/scheduler/actions/reclaim``. Where preempt stays inside a queue,
reclaim crosses queues: a queue that is not overused serves its starving jobs, and for each pending
task (whose queue may reclaim for it: ``Preemptive``) it walks the nodes in name order; on a node
the running, preemptable tasks of *other, reclaimable* queues are candidates, the plugins name the
victims (``Reclaimable``), and victims are evicted in victim order only while the task does not
fit, so a node where the task already fits gives nobody up. The task is pipelined onto the freed
room; the job's evictions stand only if the job is then pipelined.
"""

from __future__ import annotations

from scheduler.engine.actions.preempt import pending_tasks
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import TaskStatus
from scheduler.engine.framework import Action, ArgSpec, Session, Statement, register_action
from scheduler.engine.util.eviction import EvictionContext, victim_order
from scheduler.engine.util.priority_queue import PriorityQueue

__all__ = ["REASON", "ReclaimAction"]

REASON = "reclaim"


@register_action
class ReclaimAction(Action):
    """Evicts tasks of reclaimable queues for starving jobs of other queues."""

    name = "reclaim"
    arguments_schema = (ArgSpec("predicateErrorCacheEnable", bool, True),)

    def execute(self, ssn: Session) -> None:
        """Run reclaim's steps on ``ssn``."""
        ctx = EvictionContext(ssn)
        # 1. Queues of admitted, valid jobs; starving jobs are the reclaimers.
        queues: PriorityQueue[QueueInfo] = PriorityQueue(ssn.queue_order_cmp)
        reclaimers: dict[str, PriorityQueue[JobInfo]] = {}
        for uid in sorted(ssn.jobs):
            job = ssn.jobs[uid]
            queue = ssn.queues.get(job.queue)
            if queue is None or job.is_pending() or ssn.job_valid(job) is not None:
                continue
            if queue.name not in reclaimers:
                reclaimers[queue.name] = PriorityQueue(ssn.job_order_cmp)
                queues.push(queue)
            if ssn.job_starving(job):
                reclaimers[queue.name].push(job)
        # 2. Serve the best queue's best starving job, one job per pop.
        while not queues.empty():
            queue = queues.pop()
            if ssn.overused(queue):
                continue
            jobs = reclaimers[queue.name]
            if jobs.empty():
                continue
            job = jobs.pop()
            stmt = ssn.statement()
            todo = pending_tasks(ssn, job)
            while todo and ssn.job_starving(job):
                task = todo.popleft()
                if task.preemption_policy == "Never" or not ssn.preemptive(queue, task):
                    continue
                if ssn.pre_predicate_fn(task) is not None:
                    continue
                reclaim_for_task(ssn, ctx, stmt, queue, task)
            # 3. Keep the evictions only if the job is now pipelined.
            if ssn.job_pipelined(job):
                ctx.touched(stmt)
                stmt.commit()
            else:
                if len(stmt):
                    ctx.version += 1  # back to an earlier state: forget what was seen since
                ctx.discard(stmt)
            if not jobs.empty():
                queues.push(queue)


def reclaim_for_task(
    ssn: Session, ctx: EvictionContext, stmt: Statement, queue: QueueInfo, task: TaskInfo
) -> bool:
    """Free room for ``task`` on the first node where victims allow it; return True if placed."""
    if task.resreq_vec is None:
        return False
    request = task.resreq_vec
    jobs, queues = ssn.jobs, ssn.queues
    no_room = ctx.no_room(reclaimer_key(ssn, task))
    refused = ctx.refused_for_good(queue.name)
    no_room |= refused
    for row in ctx.covering_rows(task, ctx.reclaim_bound(queue.name), no_room):
        if not ctx.passes_preempt_predicate(task, row):
            continue
        node = ssn.node_list[row]
        candidates = []
        for t in node.tasks.values():
            if t.status != TaskStatus.RUNNING or not t.preemptable:
                continue
            owner = jobs.get(t.job)
            if owner is None or owner.queue == queue.name or not queues[owner.queue].reclaimable:
                continue
            candidates.append(t)
        if not candidates:
            continue
        victims = ssn.reclaimable(task, candidates)
        if not ctx.covers(node, victims, request):
            no_room[row] = True
            if not victims and ssn.reclaim_refused_for_good(task, candidates):
                refused[row] = True
            continue
        on_node = ssn.statement()
        available = ssn.arrays.future_idle[row].copy()
        for victim in victim_order(ssn, victims, task):
            if (request <= available).all():
                break
            on_node.evict(victim, REASON, preemptor=task.uid)
            if victim.resreq_vec is not None:
                available += victim.resreq_vec
        if (request <= available).all():
            on_node.pipeline(task, node)
            ctx.touched(on_node)
            stmt.merge(on_node)
            ctx.version += 1
            return True
        ctx.discard(on_node)  # the state is exactly as before this node
        no_room[row] = True
    return False


def reclaimer_key(ssn: Session, task: TaskInfo) -> tuple[object, ...]:
    """Return what the victim filters may read about a reclaimer, as a cache key.

    Two pending pods with equal keys get the same victims on a node in the same session state:
    the built-in filters read the reclaimer's queue, request, priorities and its job's gang
    counters, never its name, labels or spec (a filter that did would need them added here). This is what lets the 1,000th identical pod skip the
    nodes the 999th already found without room (Volcano asks again, in Go, at a cost we cannot
    afford in Python).
    """
    job = ssn.jobs[task.job]
    return (
        job.queue,
        task.resreq.key(),
        task.priority,
        task.preemptable,
        job.priority,
        job.min_available,
        job.ready_task_num(),
        job.waiting_task_num(),
        len(job.tasks),
    )
