"""Allocate's HyperNode path: jobs with a ``networkTopology``.

Volcano's counterpart: ``allocateForJob`` / ``allocateForSubJob`` / ``allocateResourcesForTasks``
in ``pkg/scheduler/actions/allocate/allocate.go`` for jobs without a sub-group policy (one job =
one default sub-job; jobs with a policy take ``allocate_sub_jobs.py``). A nomination a preempting
action left on the default sub-job is tried first (``allocate_nomination.py``).

A hard-topology job tries the HyperNodes of the gradient (``Session.hypernode_gradient``) tier by
tier, lowest first. In each candidate HyperNode the job's own search runs again below it (the
sub-job's gradient, with the pending pods' summed request as the filter), and the pods are placed
on that HyperNode's nodes only; each trial is undone. The first tier in which some HyperNode makes
the job ready (or pipelined) wins; among its successes the best HyperNode score
(``Session.hypernode_order``) wins (ties: the first in search order).

Volcano tries every HyperNode of the tier and then compares. The scores do not depend on the
trials (each is undone before the next), so where a candidate's score is known before its trial
(the sub-job level, and a job-level tier of HyperNodes without children) the candidates are tried
best first and the first success wins: the same choice, without trying 600 leaf switches for
every job. Elsewhere every candidate is tried and the winner's placements replayed. While a job's pods are placed, the HyperNode they are in is the LCA of the nodes so far
(network-topology-aware scores nodes by it). After a commit the job's HyperNode widens to the LCA
with the winner. A job with a topology that is not hard (an untranslatable ``highestTierName``)
is placed over all nodes with the same LCA bookkeeping.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from scheduler.engine.actions.allocate_nomination import (
    allocate_from_nomination,
    invalidate_nomination,
    nominated_rows,
    validate_nomination,
)
from scheduler.engine.actions.allocate_place import all_say, place_one
from scheduler.engine.api.hypernode import TOP_HYPERNODE, HyperNodeTree
from scheduler.engine.api.types import TaskStatus
from scheduler.engine.framework import Statement
from scheduler.engine.framework.topology import hard_tier

if TYPE_CHECKING:
    from scheduler.engine.actions.allocate import _Worksheet
    from scheduler.engine.api.job_info import JobInfo
    from scheduler.engine.api.node_info import NodeInfo
    from scheduler.engine.api.queue_info import QueueInfo
    from scheduler.engine.api.task_info import TaskInfo
    from scheduler.engine.framework.session import Session
    from scheduler.engine.util.node_select import NodeSelector

__all__ = ["TopologyAllocator"]

IntArray = npt.NDArray[np.int64]
# (task, node, pipelined): one placement of a trial, replayed for the winner.
Placed = tuple["TaskInfo", "NodeInfo", bool]


class TopologyAllocator:
    """Allocate's rounds for jobs with a networkTopology (one per allocate run)."""

    def __init__(
        self,
        ssn: Session,
        tree: HyperNodeTree,
        selector: NodeSelector,
        role_cache: bool,
        fns: tuple[list[Callable[..., bool]], list[Callable[..., bool]]],
    ) -> None:
        self.ssn = ssn
        self.tree = tree
        self.selector = selector
        self.role_cache = role_cache
        self.allocatable_fns, self.ready_fns = fns
        # The default sub-job's HyperNode per job (Volcano keeps it apart from the job's own).
        self._sub_allocated: dict[str, str] = {}

    def allocate(
        self, queue: QueueInfo, job: JobInfo, sheet: _Worksheet
    ) -> tuple[Statement | None, bool]:
        """Return the statement of one round of ``job`` (None: nothing placed) and readiness."""
        ssn = self.ssn
        highest = hard_tier(job)
        if highest is None:  # not a hard-topology job: the flat path over every node
            stmt, _ = self._place(queue, job, sheet, TOP_HYPERNODE)
            if stmt is None:
                return None, False
            return stmt, self._ready(job)
        sub = self._sub_allocated.setdefault(job.uid, job.allocated_hypernode)
        minimum = (
            None if job.min_resources is None else ssn.resource_index.vector(job.min_resources)
        )
        gradient = ssn.hypernode_gradient(
            job, TOP_HYPERNODE, highest, job.allocated_hypernode, minimum
        )
        pinned = self._nomination(queue, job, sheet)
        for group in gradient:
            if pinned:
                # A valid nomination places the job alike in every candidate (Volcano scores it 0
                # and picks among equals at random): the candidate holding it is the one taken.
                holding = [h for h in group if h in self.tree.ancestors(pinned)]
                group = holding[:1] or group
            if len(group) == 1 or not any(self.tree.children.get(h) for h in group):
                found = self._first_leaf(queue, job, sheet, group, highest, sub)
            else:
                found = self._best_of_all(queue, job, sheet, group, highest, sub)
            if found is None:
                continue
            stmt, best, chosen = found
            ready = self._ready(job)
            if ready:
                job.allocated_hypernode = self.tree.lca(job.allocated_hypernode, best)
                self._sub_allocated[job.uid] = self.tree.lca(sub, chosen)
            else:
                self._sub_allocated[job.uid] = sub
            return stmt, ready
        return None, False

    def _nomination(self, queue: QueueInfo, job: JobInfo, sheet: _Worksheet) -> str:
        """Return the HyperNode a preempting action nominated for the job when its pods can
        all go to their nominated nodes there; clear a nomination that cannot hold ("")."""
        default = job.sub_jobs.get(job.uid) if job.sub_jobs is not None else None
        if default is None or not default.nominated_hypernode:
            return ""
        pinned = default.nominated_hypernode
        rows = nominated_rows(self.ssn, self.tree, pinned)
        pending = sheet.remaining()
        if rows and validate_nomination(
            self.ssn, self.selector, self.allocatable_fns, queue, pending, rows
        ):
            return pinned
        invalidate_nomination(default, pending)
        return ""

    def _first_leaf(
        self,
        queue: QueueInfo,
        job: JobInfo,
        sheet: _Worksheet,
        group: list[str],
        highest: int,
        sub: str,
    ) -> tuple[Statement, str, str] | None:
        """Return the winner of a tier of HyperNodes without child HyperNodes (or of a single
        HyperNode), trying them best score first: the job's search below such a HyperNode is that
        HyperNode alone, so its score is its HyperNode score as the session stands (trials are
        undone), and the first success in that order is the one Volcano's try-every-one-then-
        compare would pick."""
        scores = self.ssn.hypernode_order(job, group, ties=False)
        order = sorted(range(len(group)), key=lambda i: (-scores.get(group[i], 0.0), i))
        for i in order:
            hypernode = group[i]
            trial = sheet_copy(sheet)
            self._sub_allocated[job.uid] = sub
            stmt, _score, chosen = self._allocate_sub_job(queue, job, trial, hypernode, highest)
            if stmt is None or not len(stmt):
                continue
            if self._ready(job) or self.ssn.job_pipelined(job):
                sheet.next = trial.next
                return stmt, hypernode, chosen
            stmt.discard()
        self._sub_allocated[job.uid] = sub
        return None

    def _best_of_all(
        self,
        queue: QueueInfo,
        job: JobInfo,
        sheet: _Worksheet,
        group: list[str],
        highest: int,
        sub: str,
    ) -> tuple[Statement, str, str] | None:
        """Return the best-scored success of a tier, each HyperNode tried and undone in turn."""
        wins: dict[str, tuple[list[Placed], int, float, str]] = {}
        for hypernode in group:
            trial = sheet_copy(sheet)
            self._sub_allocated[job.uid] = sub
            stmt, score, chosen = self._allocate_sub_job(queue, job, trial, hypernode, highest)
            if stmt is None or not len(stmt):
                continue
            if self._ready(job) or self.ssn.job_pipelined(job):
                wins[hypernode] = (placements(stmt), trial.next, score, chosen)
            stmt.discard()
        self._sub_allocated[job.uid] = sub
        if not wins:
            return None
        best = max(wins, key=lambda h: wins[h][2])  # max keeps the first of equal scores
        placed, next_task, _score, chosen = wins[best]
        sheet.next = next_task
        return replay(self.ssn, placed), best, chosen

    def _allocate_sub_job(
        self, queue: QueueInfo, job: JobInfo, sheet: _Worksheet, within: str, highest: int
    ) -> tuple[Statement | None, float, str]:
        """Place the job's pods in the best HyperNode below ``within`` (its own gradient), or
        on their nominated nodes when a preempting action nominated a HyperNode for the job."""
        ssn = self.ssn
        allocated = self._sub_allocated.get(job.uid, "")
        default = job.sub_jobs.get(job.uid) if job.sub_jobs is not None else None
        if default is not None and default.nominated_hypernode:
            pinned = default.nominated_hypernode
            stmt = allocate_from_nomination(
                ssn, self.tree, self.selector, self.allocatable_fns, queue, default, sheet
            )
            if stmt is not None:
                self._sub_allocated[job.uid] = self.tree.lca(allocated, pinned)
                return stmt, 0.0, pinned
        pending = job.task_status_index.get(TaskStatus.PENDING) or {}
        minimum = np.zeros(len(ssn.resource_index), dtype=np.int64)
        for task in pending.values():
            if task.resreq_vec is not None:
                minimum += task.resreq_vec
        for group in ssn.hypernode_gradient(job, within, highest, allocated, minimum):
            scores = ssn.hypernode_order(job, group, ties=False)
            for run in runs_by_score(group, scores):
                if len(run) > 1:  # equal scores: the plugins' tie-break orders them
                    tied = ssn.hypernode_order(job, run, ties=True)
                    run = sorted(run, key=lambda h: -tied.get(h, 0.0))  # stable: search order
                else:
                    tied = scores
                for hypernode in run:
                    trial = sheet_copy(sheet)
                    stmt, _ = self._place(queue, job, trial, hypernode)
                    if stmt is None or not len(stmt):
                        continue
                    sheet.next = trial.next
                    self._sub_allocated[job.uid] = self.tree.lca(allocated, hypernode)
                    return stmt, tied.get(hypernode, 0.0), hypernode
        return None, 0.0, ""

    def _rows(self, hypernode: str) -> IntArray | None:
        """Return the node rows of ``hypernode`` (None for the top: every node)."""
        return None if hypernode == TOP_HYPERNODE else self.tree.rows[hypernode]

    def _ready(self, job: JobInfo) -> bool:
        for fn in self.ready_fns:  # noqa: SIM110 - cheaper than all() over a generator
            if not fn(job):
                return False
        return True

    def _place(
        self, queue: QueueInfo, job: JobInfo, sheet: _Worksheet, hypernode: str
    ) -> tuple[Statement | None, bool]:
        """Place ``sheet``'s tasks on the nodes of ``hypernode``, as allocate's flat round does,
        widening the job's HyperNode (the LCA) after each pod; None when not ready/pipelined."""
        # allocate imports this module for its HyperNode path: its helpers come at call time.
        from scheduler.engine.actions.allocate import need_continue

        ssn, selector, tree = self.ssn, self.selector, self.tree
        if hypernode != TOP_HYPERNODE and not len(tree.rows.get(hypernode, ())):
            return None, False
        allowed = self._rows(hypernode)
        allocated = self._sub_allocated.get(job.uid, job.allocated_hypernode)
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
                continue
            task.job_allocated_hypernode = allocated
            placement = place_one(
                ssn, selector, stmt, job, sheet.failed_roles, task, choose, pre_filters
            )
            if placement is None:
                if need_continue(job, sheet):
                    continue
                break
            leaf = tree.leaf_of_row[placement.node.index]
            if leaf:
                allocated = tree.lca(leaf, allocated)
            if self._ready(job):
                break
        if self._ready(job) or ssn.job_pipelined(job):
            return stmt, True
        stmt.discard()
        return None, False


def runs_by_score(names: list[str], scores: dict[str, float]) -> list[list[str]]:
    """Return ``names`` in runs of equal score, best first, search order kept within a run."""
    runs: dict[float, list[str]] = {}
    for name in names:
        runs.setdefault(scores.get(name, 0.0), []).append(name)
    return [runs[score] for score in sorted(runs, reverse=True)]


def sheet_copy(sheet: _Worksheet) -> _Worksheet:
    """Return a trial copy of ``sheet`` (same tasks, own cursor and failed roles)."""
    return type(sheet)(sheet.tasks, sheet.next, set(sheet.failed_roles))


def placements(stmt: Statement) -> list[Placed]:
    """Return the placements of a trial statement, to replay the winner's."""
    nodes = stmt.ssn.nodes
    out: list[Placed] = []
    for op in stmt.operations:
        out.append((op.task, nodes[op.node], op.kind.value == "pipeline"))
    return out


def replay(ssn: Session, placed: list[Placed]) -> Statement:
    """Return a statement that makes ``placed`` again (Volcano's ``RecoverOperations``)."""
    stmt = Statement(ssn)
    for task, node, pipelined in placed:
        if pipelined:
            stmt.pipeline(task, node)
        else:
            stmt.allocate(task, node)
    return stmt
