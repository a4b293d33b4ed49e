"""Node selection for one task: resource fit → predicates → scores → best node, cached per template.

Volcano's counterpart: ``pkg/scheduler/util/predicate_helper.go``, ``scheduler_helper.go`` and the
node choice in ``actions/allocate``. Volcano filters and scores every node for every task; here the
answers for a *task template* (pods of one spec with one request, ``TaskInfo.template_key``) are
kept as vectors over all node rows: resource fit against Idle and FutureIdle, the AND of the
predicates, and the summed score. When the cache is asked again it recomputes only the rows changed
since (``NodeArrays.changes``), so placing the 100 pods of a job costs one full evaluation and then
one row per placement.

Ties between equal scores go to the lowest row, i.e. the smallest node name (Volcano picks at
random; a deterministic choice makes scenarios and dry runs repeatable).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from operator import ge
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from scheduler.engine.api.node_info import NodeInfo
from scheduler.engine.api.resource import Vector
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.util.row_fit import rows_fit

if TYPE_CHECKING:
    from scheduler.engine.framework.session import Session

__all__ = ["NodeSelector", "Placement"]

BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]


@dataclass(slots=True)
class _Entry:
    """Cached answers for one template over every node row."""

    req: Vector
    req_list: list[int]
    fit_idle: BoolArray
    fit_future: BoolArray
    passes: BoolArray
    scores: FloatArray
    # The score where the node is a candidate, -inf elsewhere: one argmax picks the node.
    best_now: FloatArray  # fits Idle and FutureIdle, passes predicates
    best_future: FloatArray  # fits FutureIdle, passes predicates
    epoch: int
    read: int  # how far into NodeArrays.changes this entry is up to date


@dataclass(slots=True, frozen=True)
class Placement:
    """Where a task goes: ``pipelined`` when it only fits the node's future idle resources."""

    node: NodeInfo
    pipelined: bool


class NodeSelector:
    """Per-session cache of per-template node answers, and the choice of a node for a task."""

    __slots__ = (
        "_allocate_at",
        "_catch_up_limit",
        "_entries",
        "_explained",
        "_live",
        "_one_predicate",
        "_row_predicates",
        "_row_scorers",
        "_scorers",
        "arrays",
        "best_node_hook",
        "nodes",
        "ssn",
    )

    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn
        self.arrays = ssn.arrays
        self.nodes = ssn.node_list
        self._entries: dict[tuple[object, ...], _Entry] = {}
        # explain() per template while no node changed: a failed gang retries the same text.
        self._explained: dict[tuple[object, ...], tuple[int, int, str, set[str]]] = {}
        # Plugins register in on_session_open, before any action runs: this cannot change.
        self.best_node_hook = ssn.has_fns("best_node")
        # For the one-row refresh after each placement: the predicate when a single batch one
        # decides alone, the batch scorers when no per-node scorer exists (else the dispatchers).
        batch = ssn.flat_fns("batch_predicate")
        batch_only = not ssn.node_only_fns("predicate", "batch_predicate")
        self._one_predicate = batch[0] if len(batch) == 1 and batch_only else None
        self._scorers = None if ssn.flat_fns("node_order") else ssn.flat_fns("batch_node_order")
        # Their one-row forms when every one has one (no one-element arrays per placement): the
        # row passes when every batch predicate's row form passes it, as predicate_mask ANDs.
        row_predicates = ssn.row_fns("batch_predicate") if batch_only else None
        self._row_predicates = tuple(row_predicates) if row_predicates else None
        self._row_scorers = ssn.row_fns("batch_node_order") if self._scorers is not None else None
        # One (frozen) allocate placement per node row, made on first use: select() returns it
        # instead of building one per placed pod.
        self._allocate_at: list[Placement | None] = [None] * len(self.nodes)
        # entry(): past this many changed rows, one full recomputation beats row refreshes
        self._catch_up_limit = max(len(self.nodes) // 4, 8)
        # Scores that change with placements elsewhere (network topology): added at each choice.
        self._live = ssn.flat_fns("live_node_order")

    @classmethod
    def of(cls, ssn: Session) -> NodeSelector:
        """Return the session's selector (shared by allocate, backfill and the rest)."""
        found = ssn.scratch.get("node_selector")
        if isinstance(found, NodeSelector):
            return found
        selector = cls(ssn)
        ssn.scratch["node_selector"] = selector
        return selector

    # --- the cache -------------------------------------------------------------------------------
    def _refresh(self, entry: _Entry, task: TaskInfo, rows: npt.NDArray[np.int64]) -> None:
        arrays, req = self.arrays, entry.req
        if len(rows) == 1:  # the common case (one pod just landed): scalar writes are cheaper
            self._refresh_row(entry, task, int(rows[0]))
            return
        if len(rows) == len(self.nodes):  # every row (rows is then arange): no copy to take
            fit_idle = rows_fit(arrays.idle, req)
            fit_future = rows_fit(arrays.future_idle, req)
        else:
            fit_idle = rows_fit(arrays.idle[rows], req)
            fit_future = rows_fit(arrays.future_idle[rows], req)
        passes = self.ssn.predicate_mask(task, rows)
        scores = self.ssn.node_scores(task, rows)
        entry.fit_idle[rows] = fit_idle
        entry.fit_future[rows] = fit_future
        entry.passes[rows] = passes
        entry.scores[rows] = scores
        usable = fit_future & passes
        entry.best_future[rows] = np.where(usable, scores, -np.inf)
        entry.best_now[rows] = np.where(usable & fit_idle, scores, -np.inf)

    def _refresh_row(self, entry: _Entry, task: TaskInfo, row: int) -> None:
        arrays, req = self.arrays, entry.req_list
        # Plain-int comparison of a handful of columns beats numpy's per-call overhead.
        fit_idle = all(map(ge, arrays.idle[row].tolist(), req))
        fit_future = all(map(ge, arrays.future_idle[row].tolist(), req))
        row_predicates = self._row_predicates
        if row_predicates is not None:
            passes = True
            for fn in row_predicates:  # a plain loop: all() over a generator costs more per pod
                if not fn(task, row):
                    passes = False
                    break
        else:
            rows = np.array([row], dtype=np.int64)
            passes = bool((self._one_predicate or self.ssn.predicate_mask)(task, rows)[0])
        scorers, row_scorers = self._scorers, self._row_scorers
        if scorers is None:
            rows = np.array([row], dtype=np.int64)
            score = float(self.ssn.node_scores(task, rows)[0])
        elif row_scorers is not None:  # the same float64 sum, in the same order
            score = 0.0
            for i, one in enumerate(row_scorers):
                part = one(task, row)
                score = part if i == 0 else score + part
        else:  # the same float64 sum, in the same order, as Session.node_scores
            rows = np.array([row], dtype=np.int64)
            score = 0.0
            for i, fn in enumerate(scorers):
                part = float(fn(task, rows)[0])
                score = part if i == 0 else score + part
        entry.fit_idle[row] = fit_idle
        entry.fit_future[row] = fit_future
        entry.passes[row] = passes
        entry.scores[row] = score
        usable = fit_future and passes
        entry.best_future[row] = score if usable else -np.inf
        entry.best_now[row] = score if usable and fit_idle else -np.inf

    def entry(self, task: TaskInfo) -> _Entry:
        """Return the up-to-date answers for ``task``'s template."""
        arrays = self.arrays
        key = task.template_key or task.compute_template_key()
        entry = self._entries.get(key)
        log = arrays.changes
        if (
            entry is None
            or entry.epoch != arrays.epoch
            or len(log) - entry.read > self._catch_up_limit
        ):
            n = len(self.nodes)
            assert task.resreq_vec is not None
            entry = _Entry(
                req=task.resreq_vec,
                req_list=task.resreq_vec.tolist(),
                fit_idle=np.zeros(n, dtype=np.bool_),
                fit_future=np.zeros(n, dtype=np.bool_),
                passes=np.zeros(n, dtype=np.bool_),
                scores=np.zeros(n, dtype=np.float64),
                best_now=np.full(n, -np.inf),
                best_future=np.full(n, -np.inf),
                epoch=arrays.epoch,
                read=len(log),
            )
            self._entries[key] = entry
            if n:
                self._refresh(entry, task, np.arange(n, dtype=np.int64))
        elif entry.read < len(log):
            if entry.read == len(log) - 1:  # the common case: one pod just landed
                row = log[-1]
                entry.read += 1
                self._refresh_row(entry, task, row)
                return entry
            changed = log[entry.read :]
            entry.read = len(log)
            self._refresh(entry, task, np.unique(np.array(changed, dtype=np.int64)))
        return entry

    # --- choosing --------------------------------------------------------------------------------
    def _best(self, task: TaskInfo, masked: FloatArray) -> NodeInfo | None:
        """Return the highest-scored candidate of ``masked`` (-inf = not a candidate)."""
        row = int(masked.argmax())
        if masked[row] == -np.inf:
            return None
        if self.best_node_hook:
            by_score: dict[float, list[NodeInfo]] = {}
            for r in np.flatnonzero(masked > -np.inf).tolist():
                by_score.setdefault(float(masked[r]), []).append(self.nodes[r])
            chosen = self.ssn.best_node_fn(task, by_score)
            if chosen is not None:
                return chosen
        return self.nodes[row]

    def select(self, task: TaskInfo) -> Placement | None:
        """Return the node ``task`` goes to, or None when no node can take it.

        Candidates fit the node's FutureIdle and pass the predicates; among them, nodes whose Idle
        fits are preferred (allocate) and only without one a future-idle node is taken (pipeline).
        """
        if self._live:
            return self.select_in(task, None)
        entry = self.entry(task)
        if task.nominated_node_name:
            nominated = self._nominated(task, entry)
            if nominated is not None:
                return nominated
        node = self._best(task, entry.best_now)
        if node is not None:
            return self._allocate_placement(node)
        node = self._best(task, entry.best_future)
        return None if node is None else Placement(node, pipelined=True)

    def _allocate_placement(self, node: NodeInfo) -> Placement:
        """Return the node's (frozen, shared) allocate placement: one per row, not per pod."""
        placement = self._allocate_at[node.index]
        if placement is None or placement.node is not node:
            placement = self._allocate_at[node.index] = Placement(node, pipelined=False)
        return placement

    def select_in(self, task: TaskInfo, allowed: npt.NDArray[np.int64] | None) -> Placement | None:
        """Return ``select(task)`` among the rows ``allowed`` (sorted; None: every row), with
        the live scores (``live_node_order``) added over each candidate list.

        As Volcano's ``prioritizeNodes``: nodes whose Idle fits are scored first, among
        themselves; only without one are the future-idle nodes scored (pipeline).
        """
        entry = self.entry(task)
        if task.nominated_node_name:
            nominated = self._nominated(task, entry)
            if nominated is not None and (
                allowed is None or bool((allowed == nominated.node.index).any())
            ):
                return nominated
        for masked, pipelined in ((entry.best_now, False), (entry.best_future, True)):
            if allowed is None and not self.best_node_hook:
                # Every row at once (-inf: not a candidate): no candidate list to build.
                if masked.max() == -np.inf:
                    continue
                total = masked
                for fn in self._live:
                    added = fn(task, None, total)
                    if added is not None:
                        total = added
                chosen = self.nodes[int(total.argmax())]
                if pipelined:
                    return Placement(chosen, pipelined=True)
                return self._allocate_placement(chosen)
            if allowed is None:
                rows = np.flatnonzero(masked > -np.inf)
            else:
                rows = allowed[masked[allowed] > -np.inf]
            if not len(rows):
                continue
            scores = masked[rows]
            for fn in self._live:
                total = fn(task, rows, scores)
                if total is not None:
                    scores = total
            if self.best_node_hook:
                full = np.full(len(self.nodes), -np.inf)
                full[rows] = scores
                node = self._best(task, full)
            else:
                node = self.nodes[int(rows[int(scores.argmax())])]
            if node is not None:
                return (
                    Placement(node, pipelined=True) if pipelined else self._allocate_placement(node)
                )
        return None

    def _nominated(self, task: TaskInfo, entry: _Entry) -> Placement | None:
        node = self.ssn.nodes.get(task.nominated_node_name) if task.nominated_node_name else None
        if node is None or not (entry.fit_future[node.index] and entry.passes[node.index]):
            return None
        return Placement(node, pipelined=not bool(entry.fit_idle[node.index]))

    def fits_anywhere(self, task: TaskInfo) -> bool:
        """Return True when some node passes the predicates for ``task`` (ignoring resources)."""
        return bool(self.entry(task).passes.any())

    def predicate_nodes(self, task: TaskInfo) -> list[NodeInfo]:
        """Return the nodes passing the plugin predicates, in name order (backfill's filter)."""
        return [self.nodes[r] for r in np.flatnonzero(self.entry(task).passes).tolist()]

    def best_of(self, task: TaskInfo, nodes: list[NodeInfo]) -> NodeInfo:
        """Return the best-scored node of ``nodes`` (BestNode first; ties: smallest name)."""
        entry = self.entry(task)
        masked = np.full(len(self.nodes), -np.inf)
        rows = [n.index for n in nodes]
        masked[rows] = entry.scores[rows]
        best = self._best(task, masked)
        assert best is not None, "best_of needs at least one node"
        return best

    # --- explaining ------------------------------------------------------------------------------
    def explain(self, task: TaskInfo) -> str:
        """Return Volcano's fit-error text: ``0/3 nodes are unavailable: 2 Insufficient cpu, ...``.

        Also records, in ``ssn.unresolvable_nodes[task.uid]``, the nodes whose refusal eviction
        cannot resolve (UnschedulableAndUnresolvable), which preempt and reclaim skip.
        """
        entry = self.entry(task)
        key = task.template_key or task.compute_template_key()
        cached = self._explained.get(key)
        if cached is not None and cached[:2] == (self.arrays.epoch, len(self.arrays.changes)):
            if cached[3]:
                self.ssn.unresolvable_nodes.setdefault(task.uid, set()).update(cached[3])
            return cached[2]
        unresolvable: set[str] = set()
        names = self.ssn.resource_index.names
        reasons: Counter[str] = Counter()
        # 1. Nodes short of resources: one reason per missing dimension (counted per node).
        short = self.arrays.future_idle < entry.req
        short_nodes = ~entry.fit_future
        for col, count in enumerate(short[short_nodes].sum(axis=0).tolist()):
            if count:
                reasons[f"Insufficient {names[col]}"] += count
        # 2. Nodes with room that a predicate refused: ask the per-node form why.
        for row in np.flatnonzero(entry.fit_future & ~entry.passes).tolist():
            node = self.nodes[row]
            status = self.ssn.predicate_fn(task, node)
            if status is None:
                reasons["node(s) didn't pass predicates"] += 1
                continue
            reasons[status.reason] += 1
            if not status.resolvable_by_eviction:
                unresolvable.add(node.name)
        if unresolvable:
            self.ssn.unresolvable_nodes.setdefault(task.uid, set()).update(unresolvable)
        detail = ", ".join(sorted(f"{count} {reason}" for reason, count in reasons.items()))
        text = f"0/{len(self.nodes)} nodes are unavailable: {detail}."
        self._explained[key] = (self.arrays.epoch, len(self.arrays.changes), text, unresolvable)
        return text
