"""What gangpreempt and gangreclaim share: victim bundles, the nomination plan, the job loop.

Volcano's counterpart: ``pkg/scheduler/actions/utils`` (``bundle.go``, ``simulate.go``,
``util.go``) and the ``Execute`` loops of ``actions/gangpreempt`` and ``actions/gangreclaim``.

A starving job's pending pods are treated as one need. In each domain the running pods of the
jobs it may evict are grouped per victim job into at most two bundles: a **safe** bundle (pods
whose eviction keeps the job at minMember and each role at its minTaskMember) and a **whole**
bundle (the rest: evicting any of them breaks the gang). Safe bundles go first, then the victim
order (lowest job order first for preemption, the victim queue order for reclaim), then the
bundle that frees the most of the need per resource it takes from its job. Bundles are added one
by one; once the domain's idle plus releasing resources and the chosen victims cover the need,
every victim chosen so far is evicted and all pending pods are pipelined onto the freed room
(idle nodes first, then the best-scored, as allocate chooses). A plan that does not pipeline the
job is undone and the next bundle is added. Only when the job is then pipelined does the action
commit; otherwise nothing of it remains. The plugins' UnifiedEvictable hooks (no enable flag)
may narrow the candidates first: a whole bundle survives only if all of its pods are allowed.

Domains: victims are searched HyperNode by HyperNode (``gang_domains.py``: a hard-topology job's
eviction gradient, widest first, at most ``maxDomains``; any other job, or a session without
network-topology-aware or without HyperNodes, has the whole cluster; a hard-topology job no
HyperNode can hold has none and evicts nothing). In a domain, only its nodes give victims and
room; a hard-topology job's pods are then pipelined into the first HyperNode of the domain's own
eviction gradient where they all fit (the domain itself first), any other job's onto the domain.

Differences from Volcano: a job's pending pods are placed as one, even with a subGroupPolicy
(Volcano places them sub-job by sub-job, each in its own eviction gradient), and the HyperNode a
plan placed them in is not nominated (Volcano's ``NominatedHyperNode``) for allocate to consume.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cmp_to_key

import numpy as np
import numpy.typing as npt

from scheduler.engine.actions.gang_domains import (
    CLUSTER_TOP_HYPERNODE,
    candidate_domains,
    pick_domains,
)
from scheduler.engine.actions.preempt import pending_tasks
from scheduler.engine.api.eviction import EvictionKind, GangEvictionContext
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.node_info import NodeInfo
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.resource import Resource
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import ALLOCATED_STATUSES, TaskStatus
from scheduler.engine.framework import ArgSpec, SearchPurpose, Session, Statement
from scheduler.engine.framework.topology import hard_tier
from scheduler.engine.util.node_select import NodeSelector
from scheduler.engine.util.priority_queue import PriorityQueue
from scheduler.engine.util.row_fit import rows_fit

__all__ = [
    "ALLOW_WHOLE_BUNDLE",
    "CLUSTER_TOP_HYPERNODE",
    "GANG_EVICTION_ARGUMENTS",
    "MAX_DOMAINS",
    "Bundle",
    "BundleType",
    "GangEvictionOptions",
    "create_job_bundles",
    "gang_evictable_job",
    "run_gang_eviction",
]

MAX_DOMAINS = "maxDomains"
ALLOW_WHOLE_BUNDLE = "allowWholeBundle"
DEFAULT_MAX_DOMAINS = 8
PREEMPTABLE_KEY = "volcano.sh/preemptable"

GANG_EVICTION_ARGUMENTS = (
    ArgSpec(
        MAX_DOMAINS,
        int,
        DEFAULT_MAX_DOMAINS,
        help="how many hypernode domains to look for victims in per job (<= 0: 8)",
    ),
    ArgSpec(
        ALLOW_WHOLE_BUNDLE,
        bool,
        True,
        help="may evict pods whose loss breaks their job's gang (the whole bundle)",
    ),
)


class BundleType(enum.IntEnum):
    """Safe bundles sort before whole ones."""

    SAFE = 0
    WHOLE = 1


@dataclass(slots=True)
class Bundle:
    """Victim pods of one job: ``local`` is what they free, ``total`` what their job loses.

    ``total`` is empty for a safe bundle (the job keeps running) and the request of every pod of
    the job for a whole one (the gang breaks, so the job loses all of it).
    """

    type: BundleType
    job: JobInfo
    tasks: list[TaskInfo]
    local: Resource = field(default_factory=Resource)
    total: Resource = field(default_factory=Resource)


@dataclass(slots=True, frozen=True)
class GangEvictionOptions:
    """The action's arguments, read per session (Volcano's ``parseArguments``)."""

    max_domains: int = DEFAULT_MAX_DOMAINS
    allow_whole_bundle: bool = True

    @classmethod
    def of(cls, ssn: Session, action: str) -> GangEvictionOptions:
        """Return the arguments of ``action`` in the session's conf (defaults filled in)."""
        arguments = ssn.action_arguments(action)
        domains = arguments.get_int(MAX_DOMAINS)
        return cls(
            max_domains=domains if domains > 0 else DEFAULT_MAX_DOMAINS,
            allow_whole_bundle=arguments.get_bool(ALLOW_WHOLE_BUNDLE),
        )


def _parse_bool(text: str) -> bool | None:
    """Return Go's ``strconv.ParseBool`` of ``text`` (None: not a boolean)."""
    if text in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if text in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    return None


def gang_evictable_job(job: JobInfo) -> bool:
    """Return whether gangpreempt/gangreclaim may take victims from ``job``.

    The PodGroup's ``volcano.sh/preemptable`` (annotation, else label) decides when set: only a
    true value allows (an unparsable one forbids). Unset: allowed.
    """
    text = job.annotations.get(PREEMPTABLE_KEY)
    if text is None:
        text = job.labels.get(PREEMPTABLE_KEY)
    if text is None:
        return True
    return _parse_bool(text) is True


def _sum(tasks: Iterable[TaskInfo]) -> Resource:
    total = Resource()
    for task in tasks:
        total = total + task.resreq
    return total


# --- bundles -----------------------------------------------------------------------------------
def create_job_bundles(job: JobInfo, local: list[TaskInfo]) -> list[Bundle]:
    """Split ``job``'s candidate pods into a safe and a whole bundle (either may be absent).

    A pod is safe while the job keeps more ready pods than minMember and its role more than its
    minTaskMember after the pods before it (lowest task priority first, then uid) are gone.
    A job already below minMember loses nothing more by any eviction: all its pods are safe.
    """
    if not local:
        return []
    ordered = sorted(local, key=lambda t: (t.priority, t.uid))
    surplus = job.ready_task_num() - job.min_available
    if surplus < 0:
        return [Bundle(BundleType.SAFE, job, ordered, _sum(ordered))]
    role_surplus: dict[str, int] = {}
    if job.min_available >= sum(job.task_min_available.values()):
        ready: dict[str, int] = {}
        for task in job.tasks.values():
            holds = task.status in ALLOCATED_STATUSES or task.status == TaskStatus.SUCCEEDED
            if holds or (task.status == TaskStatus.PENDING and task.best_effort):
                ready[task.role] = ready.get(task.role, 0) + 1
        role_surplus = {r: ready.get(r, 0) - m for r, m in job.task_min_available.items()}
    safe: list[TaskInfo] = []
    whole: list[TaskInfo] = []
    for task in ordered:
        has_min = task.role in role_surplus
        if surplus > 0 and (not has_min or role_surplus[task.role] > 0):
            safe.append(task)
            surplus -= 1
            if has_min:
                role_surplus[task.role] -= 1
        else:
            whole.append(task)
    bundles = []
    if safe:
        bundles.append(Bundle(BundleType.SAFE, job, safe, _sum(safe)))
    if whole:
        bundles.append(Bundle(BundleType.WHOLE, job, whole, _sum(whole), _sum(job.tasks.values())))
    return bundles


def _score(amounts: Resource, need: Resource, *, cap: bool) -> float:
    score = 0.0
    for name, wanted in need.items():
        if wanted <= 0:
            continue
        value = amounts.get(name)
        if cap and value > wanted:
            value = wanted
        score += value / wanted
    return score


def bundle_roi(bundle: Bundle, need: Resource) -> float:
    """Return how much of ``need`` the bundle frees per resource its job loses (safe: inf)."""
    total = _score(bundle.total, need, cap=False)
    if total == 0:
        return math.inf
    return _score(bundle.local, need, cap=True) / total


def _first_uid(bundle: Bundle) -> str:
    return bundle.tasks[0].uid if bundle.tasks else ""


def sort_bundles(
    bundles: list[Bundle], need: Resource, before: Callable[[Bundle, Bundle], bool | None]
) -> list[Bundle]:
    """Return ``bundles`` in eviction order: type, ``before`` (None: no opinion), ROI, stable."""

    def compare(left: Bundle, right: Bundle) -> int:
        if left.type != right.type:
            return -1 if left.type < right.type else 1
        first = before(left, right)
        if first is not None:
            return -1 if first else 1
        lroi, rroi = bundle_roi(left, need), bundle_roi(right, need)
        if lroi != rroi:
            return -1 if lroi > rroi else 1
        lkey = (left.job.uid, _first_uid(left), len(left.tasks))
        rkey = (right.job.uid, _first_uid(right), len(right.tasks))
        return -1 if lkey < rkey else (1 if lkey > rkey else 0)

    return sorted(bundles, key=cmp_to_key(compare))


def _allowed_bundles(bundles: list[Bundle], allowed: set[str]) -> list[Bundle]:
    """Keep the allowed pods of safe bundles; keep a whole bundle only if all of it is allowed."""
    out = []
    for bundle in bundles:
        kept = [t for t in bundle.tasks if t.uid in allowed]
        if bundle.type is BundleType.WHOLE:
            if len(kept) == len(bundle.tasks):
                out.append(bundle)
        elif kept:
            out.append(Bundle(bundle.type, bundle.job, kept, _sum(kept), bundle.total))
    return out


# --- one starving job ----------------------------------------------------------------------------
@dataclass(slots=True)
class _Attempt:
    """One job's attempt: the session, its action and the job's pending pods and need."""

    ssn: Session
    kind: EvictionKind
    options: GangEvictionOptions
    queue: QueueInfo
    job: JobInfo
    pending: list[TaskInfo]
    need: Resource

    def candidates(self, nodes: list[NodeInfo]) -> dict[str, list[TaskInfo]]:
        """Return the pods this job may evict on ``nodes``, by victim job."""
        ssn, job = self.ssn, self.job
        reclaim = self.kind is EvictionKind.GANG_RECLAIM
        found: dict[str, list[TaskInfo]] = {}
        for node in nodes:
            for task in node.tasks.values():
                if reclaim:
                    holding = task.status == TaskStatus.RUNNING
                else:
                    holding = task.status in (TaskStatus.BOUND, TaskStatus.RUNNING)
                if not holding or not task.preemptable:
                    continue
                victim = ssn.jobs.get(task.job)
                if victim is None or not gang_evictable_job(victim):
                    continue
                if reclaim:
                    queue = ssn.queues.get(victim.queue)
                    if victim.queue == job.queue or queue is None or not queue.reclaimable:
                        continue
                elif (
                    victim.queue != job.queue
                    or job.priority <= victim.priority
                    or victim.uid == job.uid
                ):
                    continue
                found.setdefault(victim.uid, []).append(task)
        return found

    def _before(self) -> Callable[[Bundle, Bundle], bool | None]:
        ssn = self.ssn
        if self.kind is EvictionKind.GANG_PREEMPT:

            def victim_job_first(left: Bundle, right: Bundle) -> bool | None:
                if left.job.uid == right.job.uid:
                    return None
                lr = not ssn.job_order_fn(left.job, right.job)
                rl = not ssn.job_order_fn(right.job, left.job)
                return lr if lr != rl else None

            return victim_job_first
        mine = ssn.queues.get(self.job.queue)

        def queue_less(left: QueueInfo, right: QueueInfo) -> bool:
            if mine is None:
                return ssn.queue_order_fn(left, right)
            return ssn.victim_queue_order_fn(left, right, mine)

        def victim_queue_first(left: Bundle, right: Bundle) -> bool | None:
            lq, rq = ssn.queues.get(left.job.queue), ssn.queues.get(right.job.queue)
            if lq is None or rq is None or lq.name == rq.name:
                return None
            lr, rl = queue_less(lq, rq), queue_less(rq, lq)
            return lr if lr != rl else None

        return victim_queue_first

    def bundles(self, domain: str, nodes: list[NodeInfo]) -> list[Bundle]:
        """Return the domain's victim bundles this job may use, in eviction order."""
        bundles = []
        for uid, tasks in self.candidates(nodes).items():
            bundles.extend(create_job_bundles(self.ssn.jobs[uid], tasks))
        if not bundles:
            return []
        before = self._before()
        bundles = sort_bundles(bundles, self.need, before)
        ctx = GangEvictionContext(self.kind, self.job, domain)
        flat = [t for b in bundles for t in b.tasks]
        allowed = self.ssn.unified_evictable(ctx, flat)
        if not allowed:
            return []
        valid = sort_bundles(_allowed_bundles(bundles, {t.uid for t in allowed}), self.need, before)
        return [b for b in valid if b.type is BundleType.SAFE or self.options.allow_whole_bundle]

    def run(self, stmt: Statement) -> None:
        """Find victims domain by domain until a plan pipelines the job; add it to ``stmt``."""
        ssn = self.ssn
        arrays = ssn.arrays
        for domain in candidate_domains(ssn, self.job, self.options.max_domains):
            rows = self._rows(domain)
            if not len(rows):
                continue
            bundles = self.bundles(domain, [ssn.node_list[r] for r in rows.tolist()])
            if not bundles:
                continue
            # the domain's idle plus releasing, summed over its nodes
            room = ssn.resource_index.resource(
                arrays.idle[rows].sum(axis=0) + arrays.releasing[rows].sum(axis=0)
            )
            chosen: list[TaskInfo] = []
            for bundle in bundles:
                chosen.extend(bundle.tasks)
                if not self.need.less_equal(room + _sum(chosen)):
                    continue
                plan = self._plan(list(chosen), domain)
                if plan is not None:
                    stmt.merge(plan)
                    return

    def _rows(self, hypernode: str) -> npt.NDArray[np.int64]:
        """Return the node rows of ``hypernode`` (the cluster: every row)."""
        tree = self.ssn.hypernodes
        if tree is None or hypernode not in tree.rows:
            return np.arange(len(self.ssn.node_list), dtype=np.int64)
        return tree.rows[hypernode]

    def _targets(self, domain: str) -> list[str]:
        """Return the HyperNodes to try placing the job in within ``domain``, in order."""
        ssn, job = self.ssn, self.job
        highest = hard_tier(job)
        if highest is None or ssn.hypernodes is None:
            return [domain]
        minimum = (
            None if job.min_resources is None else ssn.resource_index.vector(job.min_resources)
        )
        gradient = ssn.hypernode_gradient(
            job, domain, highest, job.allocated_hypernode, minimum, SearchPurpose.EVICT
        )
        return pick_domains(gradient, 0, "")

    def _plan(self, victims: list[TaskInfo], domain: str) -> Statement | None:
        """Evict ``victims`` and pipeline every pending pod in one HyperNode of ``domain``; None
        (nothing changed) on failure."""
        ssn, job = self.ssn, self.job
        plan = ssn.statement()
        for victim in victims:
            plan.evict(victim, str(self.kind))
        for target in self._targets(domain):
            trial = ssn.statement()
            # Volcano also accepts a trial on JobReady, then still asks for JobPipelined: the
            # latter decides (a ready job is pipelined too: ready tasks count toward both).
            if self._pipeline_all(trial, self._rows(target)) and ssn.job_pipelined(job):
                plan.merge(trial)
                return plan
            trial.discard()
        plan.discard()
        return None

    def _pipeline_all(self, plan: Statement, rows: npt.NDArray[np.int64]) -> bool:
        """Pipeline the pending pods in task order onto their best node among ``rows``; False if
        one has none."""
        ssn, queue = self.ssn, self.queue
        selector = NodeSelector.of(ssn)
        arrays = ssn.arrays
        placed = 0
        for task in self.pending:
            if not ssn.allocatable(queue, task) or task.resreq_vec is None:
                return False
            if ssn.pre_predicate_fn(task) is not None:
                return False
            entry = selector.entry(task)
            request = task.resreq_vec
            fit_future = np.zeros(len(arrays.future_idle), dtype=np.bool_)
            fit_future[rows] = rows_fit(arrays.future_idle[rows], request)
            fit_idle = rows_fit(arrays.idle, request)
            idle_fit: list[NodeInfo] = []
            future_fit: list[NodeInfo] = []
            unresolvable = ssn.unresolvable_nodes.get(task.uid, set())
            for row in np.flatnonzero(fit_future).tolist():
                node = ssn.node_list[row]
                if node.name in unresolvable:
                    continue
                if not entry.passes[row]:  # PredicateForPreemptAction: resolvable failures pass
                    status = ssn.predicate_fn(task, node)
                    if status is not None and not status.resolvable_by_eviction:
                        continue
                (idle_fit if fit_idle[row] else future_fit).append(node)
            best = None
            for group in (idle_fit, future_fit):
                if group:
                    best = group[0] if len(group) == 1 else selector.best_of(task, group)
                    break
            if best is None:
                return False
            plan.pipeline(task, best)
            placed += 1
        return placed > 0


def _collect_pending(ssn: Session, job: JobInfo) -> list[TaskInfo]:
    """Return the job's pending pods that need room, in task order (not gated, not BestEffort)."""
    return [t for t in pending_tasks(ssn, job) if not t.best_effort]


def _preemptive(ssn: Session, queue: QueueInfo, job: JobInfo, pending: list[TaskInfo]) -> bool:
    """Ask the plugins whether ``queue`` may reclaim for all of ``pending`` at once.

    Volcano passes the pods as one list and its plugins sum their requests; here the question is
    asked once for a stand-in pod requesting that sum.
    """
    total = _sum(pending)
    stand_in = TaskInfo(
        name=f"{job.name}-pending", namespace=job.namespace, job=job.uid, resreq=total
    )
    stand_in.resreq_vec = ssn.resource_index.vector(total)
    return ssn.preemptive(queue, stand_in)


def run_gang_eviction(ssn: Session, kind: EvictionKind) -> None:
    """Run gangpreempt or gangreclaim on ``ssn``: every starving job, queue by queue."""
    options = GangEvictionOptions.of(ssn, str(kind))
    queues: dict[str, QueueInfo] = {}
    starving: dict[str, list[JobInfo]] = {}
    for uid in sorted(ssn.jobs):
        job = ssn.jobs[uid]
        if job.is_pending() or ssn.job_valid(job) is not None:
            continue
        queue = ssn.queues.get(job.queue)
        if queue is None:
            continue
        queues.setdefault(queue.name, queue)
        if ssn.job_starving(job):
            starving.setdefault(queue.name, []).append(job)
    order: PriorityQueue[QueueInfo] = PriorityQueue(ssn.queue_order_cmp, list(queues.values()))
    while not order.empty():
        queue = order.pop()
        if kind is EvictionKind.GANG_RECLAIM and ssn.overused(queue):
            continue
        jobs: PriorityQueue[JobInfo] = PriorityQueue(
            ssn.job_order_cmp, starving.get(queue.name, [])
        )
        while not jobs.empty():
            job = jobs.pop()
            stmt = ssn.statement()
            pending = _collect_pending(ssn, job)
            if pending and (
                kind is EvictionKind.GANG_PREEMPT or _preemptive(ssn, queue, job, pending)
            ):
                need = Resource()
                for task in pending:
                    assert task.init_resreq is not None
                    need = need + task.init_resreq
                _Attempt(ssn, kind, options, queue, job, pending, need).run(stmt)
            if ssn.job_pipelined(job):
                stmt.commit()
            else:
                stmt.discard()
