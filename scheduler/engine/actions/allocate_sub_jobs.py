"""Allocate's sub-job path: jobs whose PodGroup has a ``subGroupPolicy``.

Volcano's counterpart: ``allocateForJob`` / ``allocateForSubJob`` / ``allocateFromNomination`` /
``validateNomination`` in ``pkg/scheduler/actions/allocate/allocate.go`` and its ``recorder.go``.

A round of such a job picks the job's HyperNode from the job's gradient (the virtual top for a
job without hard topology), tier by tier. In each candidate, the sub-jobs are placed one after
the other (those the job needs to reach ``minSubGroups`` first, then SubJobOrder), each in the
best HyperNode of its own gradient below the job's candidate, until the job is ready; a sub-job
placed but with pods left goes back in line. Each candidate is tried and undone, the sub-jobs'
HyperNodes restored; the candidate whose summed sub-job HyperNode scores is highest wins (ties:
the first in search order) and its placements are replayed. When the job then commits, the job's
and the sub-jobs' HyperNodes widen to the winner's and the sub-jobs' nominations are cleared.

Within a sub-job, the HyperNode scores do not depend on the trials (each is undone), so the
candidates of a tier are tried best score first (equal scores in the plugins' tie-break order,
which Volcano applies among the best successes) and the first success wins: Volcano's
try-every-one-then-compare choice, without placing a sub-job in every HyperNode of the tier.

A sub-job with a ``nominated_hypernode`` first takes the nomination's fast path
(``allocate_nomination.py``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from scheduler.engine.actions.allocate_nomination import allocate_from_nomination
from scheduler.engine.actions.allocate_place import all_say, place_one
from scheduler.engine.actions.allocate_topology import (
    Placed,
    placements,
    replay,
    runs_by_score,
    sheet_copy,
)
from scheduler.engine.api.hypernode import TOP_HYPERNODE
from scheduler.engine.api.sub_job import SubJobInfo, min_sub_jobs, sub_jobs_of
from scheduler.engine.framework import Statement
from scheduler.engine.framework.topology import hard_tier

if TYPE_CHECKING:
    from scheduler.engine.actions.allocate import _Worksheet
    from scheduler.engine.api.hypernode import HyperNodeTree
    from scheduler.engine.api.job_info import JobInfo
    from scheduler.engine.api.queue_info import QueueInfo
    from scheduler.engine.api.task_info import TaskInfo
    from scheduler.engine.framework.session import Session
    from scheduler.engine.util.node_select import NodeSelector

__all__ = ["SubJobAllocator"]


@dataclass(slots=True)
class _JobSheet:
    """A job's pending tasks per sub-job (Volcano's JobWorksheet), and which sub-jobs the job
    needs first to reach its policies' ``minSubGroups``."""

    sheets: dict[str, _Worksheet]
    required: set[str] = field(default_factory=set)

    def empty(self) -> bool:
        return not any(s.next < len(s.tasks) for s in self.sheets.values())

    def clone(self) -> _JobSheet:
        return _JobSheet({k: sheet_copy(s) for k, s in self.sheets.items()}, self.required)


class SubJobAllocator:
    """Allocate's rounds for jobs with a subGroupPolicy (one per allocate run)."""

    def __init__(
        self,
        ssn: Session,
        tree: HyperNodeTree | None,
        selector: NodeSelector,
        role_cache: bool,
        fns: tuple[list[Callable[..., bool]], list[Callable[..., bool]]],
    ) -> None:
        self.ssn = ssn
        self.tree = tree
        self.selector = selector
        self.role_cache = role_cache
        self.allocatable_fns, self.ready_fns = fns
        self._sheets: dict[str, _JobSheet] = {}

    # --- the job -------------------------------------------------------------------------------
    def allocate(
        self, queue: QueueInfo, job: JobInfo, sheet: _Worksheet
    ) -> tuple[Statement | None, bool]:
        """Return the statement of one round of ``job`` (None: nothing placed) and readiness.

        ``sheet.next`` is moved to the end once every sub-job's tasks are consumed, so the caller
        pushes the job back only while some remain."""
        job_sheet = self._sheets.get(job.uid)
        if job_sheet is None:
            job_sheet = self._sheets[job.uid] = self._organize(job, sheet)
        stmt, ready = self._allocate_job(queue, job, job_sheet)
        if job_sheet.empty():
            sheet.next = len(sheet.tasks)
        return stmt, ready

    def _organize(self, job: JobInfo, sheet: _Worksheet) -> _JobSheet:
        """Split the job's pending tasks (task order kept) by sub-job; mark the sub-jobs the job
        needs first: in SubJobOrder, those not ready until each policy has its minimum."""
        ssn = self.ssn
        subs = sub_jobs_of(job)
        owner = {uid: sub.uid for sub in subs.values() for uid in sub.tasks}
        split: dict[str, list[TaskInfo]] = {}
        for task in sheet.remaining():
            split.setdefault(owner[task.uid], []).append(task)
        sheets = {uid: type(sheet)(tasks) for uid, tasks in split.items()}
        counts: dict[str, int] = {}
        waiting = []
        for sub in subs.values():
            if ssn.sub_job_ready(job, sub):
                counts[sub.gid] = counts.get(sub.gid, 0) + 1
            else:
                waiting.append(sub)
        waiting = _sorted(ssn, waiting)
        need = min_sub_jobs(job)
        required = set()
        for sub in waiting:
            if counts.get(sub.gid, 0) < need.get(sub.gid, 0):
                required.add(sub.uid)
                counts[sub.gid] = counts.get(sub.gid, 0) + 1
        return _JobSheet(sheets, required)

    def _next_sub_job(self, job: JobInfo, line: list[SubJobInfo], required: set[str]) -> SubJobInfo:
        """Pop the next sub-job: the required ones first, then SubJobOrder (asked now: readiness
        changes as sub-jobs are placed)."""
        best = 0
        for i in range(1, len(line)):
            if _before(self.ssn, line[i], line[best], required):
                best = i
        return line.pop(best)

    def _allocate_job(
        self, queue: QueueInfo, job: JobInfo, job_sheet: _JobSheet
    ) -> tuple[Statement | None, bool]:
        ssn, tree = self.ssn, self.tree
        if job_sheet.empty():
            return None, False
        subs = sub_jobs_of(job)
        saved = {uid: subs[uid].allocated_hypernode for uid in job_sheet.sheets}
        highest = hard_tier(job)
        if highest is None or tree is None:
            gradient = [[TOP_HYPERNODE]]
        else:
            minimum = (
                None if job.min_resources is None else ssn.resource_index.vector(job.min_resources)
            )
            gradient = ssn.hypernode_gradient(
                job, TOP_HYPERNODE, highest, job.allocated_hypernode, minimum
            )
        for group in gradient:
            wins: dict[str, tuple[list[Placed], _JobSheet, float, dict[str, str]]] = {}
            for hypernode in group:
                job.fit_errors.clear()
                trial = job_sheet.clone()
                line = [subs[uid] for uid, s in trial.sheets.items() if s.next < len(s.tasks)]
                stmts: list[Statement] = []
                score = 0.0
                decisions: dict[str, str] = {}
                while line:
                    sub = self._next_sub_job(job, line, trial.required)
                    sub_sheet = trial.sheets[sub.uid]
                    stmt, got = self._allocate_sub_job(queue, job, sub, sub_sheet, hypernode)
                    if stmt is not None and len(stmt):
                        stmts.append(stmt)
                        score += got
                        decisions[sub.uid] = sub.allocated_hypernode
                        if sub_sheet.next < len(sub_sheet.tasks):
                            line.append(sub)
                        if self._ready(job):
                            break
                for uid, allocated in saved.items():
                    subs[uid].allocated_hypernode = allocated
                placed = [p for stmt in stmts for p in placements(stmt)]
                if placed and (self._ready(job) or ssn.job_pipelined(job)):
                    wins[hypernode] = (placed, trial, score, decisions)
                for stmt in reversed(stmts):
                    stmt.discard()
            if not wins:
                continue
            best = max(wins, key=lambda h: wins[h][2])  # max keeps the first of equal scores
            placed, trial, _score, decisions = wins[best]
            job_sheet.sheets, job_sheet.required = trial.sheets, trial.required
            stmt = replay(ssn, placed)
            ready = self._ready(job)
            if ready:
                self._record(job, best, decisions)
            return stmt, ready
        return None, False

    def _record(self, job: JobInfo, best: str, decisions: dict[str, str]) -> None:
        """Widen the job's and its sub-jobs' HyperNodes to the committed ones; the sub-jobs'
        nominations are redeemed (Volcano's ``UpdateDecisionToJob``)."""
        tree = self.tree
        if tree is None:
            return
        if job.network_topology is not None:
            job.allocated_hypernode = tree.lca(job.allocated_hypernode, best)
        subs = sub_jobs_of(job)
        for uid, hypernode in decisions.items():
            sub = subs[uid]
            sub.allocated_hypernode = tree.lca(sub.allocated_hypernode, hypernode)
            sub.nominated_hypernode = ""

    # --- one sub-job ---------------------------------------------------------------------------
    def _allocate_sub_job(
        self, queue: QueueInfo, job: JobInfo, sub: SubJobInfo, sheet: _Worksheet, within: str
    ) -> tuple[Statement | None, float]:
        """Place ``sub``'s tasks in the best HyperNode of its gradient below ``within``; return
        the statement and that HyperNode's score (``sheet`` advances past the tasks taken)."""
        ssn, tree = self.ssn, self.tree
        if sheet.next >= len(sheet.tasks):
            return None, 0.0
        if sub.nominated_hypernode:
            stmt = allocate_from_nomination(
                ssn, tree, self.selector, self.allocatable_fns, queue, sub, sheet
            )
            if stmt is not None:
                return stmt, 0.0
        if tree is None:
            gradient = [[TOP_HYPERNODE]]
        else:
            gradient = ssn.hypernode_gradient_for_sub_job(job, sub, within)
        for group in gradient:
            # HyperNodeOrder scores the pods of what it places: the sub-job's, not the job's.
            plain = ssn.hypernode_order(cast("JobInfo", sub), group, ties=False)
            for run in runs_by_score(group, plain):
                if len(run) > 1:  # equal scores: the plugins' tie-break orders them
                    scores = ssn.hypernode_order(cast("JobInfo", sub), run, ties=True)
                    run = sorted(run, key=lambda h: -scores.get(h, 0.0))  # stable: search order
                else:
                    scores = plain
                for hypernode in run:
                    for uid in sub.tasks:
                        job.fit_errors.pop(uid, None)
                    trial = sheet_copy(sheet)
                    stmt = self._place(queue, job, sub, trial, hypernode)
                    if stmt is None or not len(stmt):
                        continue
                    sheet.next, sheet.failed_roles = trial.next, trial.failed_roles
                    if tree is not None:
                        sub.allocated_hypernode = tree.lca(sub.allocated_hypernode, hypernode)
                    return stmt, scores.get(hypernode, 0.0)
        return None, 0.0

    def _place(
        self, queue: QueueInfo, job: JobInfo, sub: SubJobInfo, sheet: _Worksheet, hypernode: str
    ) -> Statement | None:
        """Place ``sheet``'s tasks on the nodes of ``hypernode`` until the sub-job is ready
        (Volcano's ``allocateResourcesForTasks``); None when neither ready nor pipelined."""
        ssn, selector, tree = self.ssn, self.selector, self.tree
        allowed = None
        if hypernode != TOP_HYPERNODE and tree is not None:
            allowed = tree.rows.get(hypernode)
            if allowed is None or not len(allowed):
                return None
        topology = sub.network_topology is not None and tree is not None
        allocated = sub.allocated_hypernode
        stmt = Statement(ssn)
        pre_filters = ssn.has_fns("pre_predicate")
        choose = functools.partial(selector.select_in, allowed=allowed)
        tasks = sheet.tasks
        while sheet.next < len(tasks):
            task = tasks[sheet.next]
            sheet.next += 1
            if not all_say(self.allocatable_fns, queue, task):
                continue
            if self.role_cache and task.role and task.role in sheet.failed_roles:
                job.fit_errors[task.uid] = (
                    f"Task {task.name} with role spec {task.role} has already predicated failed"
                )
                continue
            if topology:
                task.job_allocated_hypernode = allocated
            placement = place_one(
                ssn, selector, stmt, job, sheet.failed_roles, task, choose, pre_filters
            )
            if placement is None:
                if _need_continue(job, sub):
                    continue
                break
            if topology and tree is not None:
                leaf = tree.leaf_of_row[placement.node.index]
                if leaf:
                    allocated = tree.lca(leaf, allocated)
            if ssn.sub_job_ready(job, sub):
                break
        if ssn.sub_job_ready(job, sub) or ssn.sub_job_pipelined(job, sub):
            return stmt
        stmt.discard()
        return None

    def _ready(self, job: JobInfo) -> bool:
        for fn in self.ready_fns:  # noqa: SIM110 - cheaper than all() over a generator
            if not fn(job):
                return False
        return True


def _need_continue(job: JobInfo, sub: SubJobInfo) -> bool:
    """Return True when a task of ``sub`` that did not fit should not end its round: not when
    the job or the sub-job needs every one of its pods."""
    if job.min_available == len(job.tasks):
        return False
    return sub.min_available < len(sub.tasks)


def _before(ssn: Session, left: SubJobInfo, right: SubJobInfo, required: set[str]) -> bool:
    lreq, rreq = left.uid in required, right.uid in required
    if lreq != rreq:
        return lreq
    return ssn.sub_job_order_cmp(left, right) < 0


def _sorted(ssn: Session, subs: list[SubJobInfo]) -> list[SubJobInfo]:
    """Return ``subs`` in SubJobOrder."""
    return sorted(subs, key=functools.cmp_to_key(ssn.sub_job_order_cmp))
