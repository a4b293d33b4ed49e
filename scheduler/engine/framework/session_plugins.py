"""The session's registrars (``add_*_fn``) and dispatchers: how plugin answers are combined.

Volcano's counterpart: ``pkg/scheduler/framework/session_plugins.go``. A plugin registers in
``on_session_open`` under its own name; a dispatcher asks ``_fns_by_tier(hook)`` for the enabled
functions (tier by tier, conf order, filtered by the hook's enable flag) and hands them to one
combinator of ``dispatch.py``.

Signatures (``T`` task, ``J`` job, ``Q`` queue, ``N`` node, ``rows`` an int array of node rows):

==========================  =========================================  ======================
registrar                   function                                   combined by
==========================  =========================================  ======================
add_job_order_fn            (J, J) -> int (negative: left first)       first_nonzero
add_queue_order_fn          (Q, Q) -> int                              first_nonzero
add_task_order_fn           (T, T) -> int                              first_nonzero
add_victim_queue_order_fn   (Q, Q, preemptor Q) -> int                 first_nonzero
add_preemptable_fn          (T, [T]) -> [T] | None (None abstains)     intersect_by_tier
add_reclaimable_fn          (T, [T]) -> [T] | None                     intersect_by_tier
add_victim_tasks_fn         ([T]) -> [T]                               union, first tier
add_overused_fn             (Q) -> bool                                any
add_allocatable_fn          (Q, T) -> bool                             all
add_preemptive_fn           (Q, T) -> bool                             all
add_job_enqueueable_fn      (J) -> PERMIT | ABSTAIN | REJECT           vote
add_job_enqueued_fn         (J) -> None                                each called
add_job_ready_fn            (J) -> bool                                all
add_job_pipelined_fn        (J) -> PERMIT | ABSTAIN | REJECT           vote
add_job_valid_fn            (J) -> ValidateResult | None               first failure
add_job_starving_fn         (J) -> bool                                first tier decides
add_pre_predicate_fn        (T) -> PredicateStatus | None              first failure
add_predicate_fn            (T, N) -> PredicateStatus | None           first failure
add_batch_predicate_fn      (T, rows) -> bool array (True: fits)       AND
add_node_order_fn           (T, N) -> float                            sum
add_batch_node_order_fn     (T, rows) -> float array                   sum
add_best_node_fn            (T, {score: [N]}) -> N | None              first answer
add_event_handler           EventHandler(allocate_func, deallocate_func)
==========================  =========================================  ======================

The batch forms are the speed path: allocate caches one mask and one score vector per task
template and recomputes only rows whose node changed (``NodeArrays.changes``). A plugin whose
answer for a node can change when *another* node changes (inter-pod affinity, topology spread)
calls ``ssn.touch_nodes(rows)`` (or ``touch_nodes(None)`` for all) from its event handler.

What a batch function can read: ``ssn.arrays`` (``NodeArrays``: ``allocatable``, ``used``,
``idle``, ``releasing``, ``pipelined``, ``future_idle``, each ``(nodes, resources)`` int64
milli-units), ``ssn.resource_index`` (``position[name]`` = column; cpu, memory, pods are columns
0, 1, 2), ``task.resreq_vec`` (the request as a row) and ``ssn.node_list[row]`` (the ``NodeInfo``
of a row; rows are nodes sorted by name). Static per-node facts (labels, taints) are best turned
into arrays once in ``on_session_open``.

Predicates: a plugin may register both forms; they must agree. The batch form builds masks, the
per-node form answers single-node questions and gives the reason a node refused a task. With only
one form registered, the session derives the other (slowly, for a per-node-only plugin).

Scores: as in Volcano, NodeOrder and BatchNodeOrder are *different* scores that are summed (nodeorder
scores image locality per node and the rest in batch). Every score should have a batch form for speed;
a per-node-only score is evaluated node by node.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from scheduler.engine.api.types import PredicateStatus, ValidateResult
from scheduler.engine.framework import dispatch
from scheduler.engine.framework.interface import EventHandler

if TYPE_CHECKING:
    from scheduler.engine.api.job_info import JobInfo
    from scheduler.engine.api.node_info import NodeInfo
    from scheduler.engine.api.queue_info import QueueInfo
    from scheduler.engine.api.task_info import TaskInfo
    from scheduler.engine.conf import SchedulerConf

__all__ = ["HOOK_FLAGS", "SessionPlugins"]

BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

# hook -> the conf flag(s) that enable it (None: always on; a tuple: on if any is on).
HOOK_FLAGS: dict[str, str | tuple[str, ...] | None] = {
    "job_order": "enableJobOrder",
    "queue_order": "enableQueueOrder",
    "task_order": "enableTaskOrder",
    "victim_queue_order": None,
    "preemptable": "enablePreemptable",
    "reclaimable": "enableReclaimable",
    "victim_tasks": "enabledVictim",
    "overused": "enabledOverused",
    "allocatable": "enabledAllocatable",
    "preemptive": "enablePreemptive",
    "job_enqueueable": "enableJobEnqueued",
    "job_enqueued": "enableJobEnqueued",
    "job_ready": "enableJobReady",
    "job_pipelined": "enableJobPipelined",
    "job_valid": None,
    "job_starving": "enableJobStarving",
    "pre_predicate": "enablePredicate",
    "predicate": "enablePredicate",
    "batch_predicate": "enablePredicate",
    "node_order": "enableNodeOrder",
    "batch_node_order": "enableNodeOrder",
    "best_node": "enableBestNode",
}


def _tie(left: Any, right: Any) -> int:
    lt, rt = left.creation_timestamp, right.creation_timestamp
    if lt is not None and rt is not None and lt != rt:
        return -1 if lt < rt else 1
    lu, ru = left.uid, right.uid
    return -1 if lu < ru else (1 if lu > ru else 0)


def _pod_index(name: str) -> int | None:
    parts = name.split("-")
    if len(parts) < 3:
        return None
    try:
        return int(parts[-1])
    except ValueError:
        return None


def default_task_order(left: TaskInfo, right: TaskInfo) -> int:
    """Return Volcano's default task comparison: pod index, then creation time, then uid."""
    li, ri = _pod_index(left.name), _pod_index(right.name)
    if li is not None and ri is not None and li != ri:
        return -1 if li < ri else 1
    return _tie(left, right)


class SessionPlugins:
    """Registrars and dispatchers; mixed into ``Session``."""

    conf: SchedulerConf
    node_list: list[NodeInfo]

    def _init_hooks(self) -> None:
        self._hooks: dict[str, dict[str, Callable[..., Any]]] = {h: {} for h in HOOK_FLAGS}
        self._by_tier: dict[str, list[list[Callable[..., Any]]]] = {}
        self._one_form: dict[tuple[str, str], list[tuple[str, Callable[..., Any]]]] = {}
        self._flat_fns: dict[str, list[Callable[..., Any]]] = {}
        self.event_handlers: list[EventHandler] = []

    def _register(self, hook: str, plugin: str, fn: Callable[..., Any]) -> None:
        self._hooks[hook][plugin] = fn
        self._by_tier.pop(hook, None)
        self._one_form.clear()
        self._flat_fns.clear()

    def _fns_by_tier(self, hook: str) -> list[list[Callable[..., Any]]]:
        """Return the enabled functions of ``hook``, one list per tier, in conf order."""
        cached = self._by_tier.get(hook)
        if cached is not None:
            return cached
        flags = HOOK_FLAGS[hook]
        fns = self._hooks[hook]
        tiers: list[list[Callable[..., Any]]] = []
        for tier in self.conf.tiers:
            chosen = []
            for option in tier.plugins:
                fn = fns.get(option.name)
                if fn is None:
                    continue
                if flags is None:
                    on = True
                elif isinstance(flags, tuple):
                    on = any(option.enabled(f) for f in flags)
                else:
                    on = option.enabled(flags)
                if on:
                    chosen.append(fn)
            tiers.append(chosen)
        self._by_tier[hook] = tiers
        return tiers

    def has_fns(self, hook: str) -> bool:
        """Return True when some enabled plugin answers ``hook``."""
        return any(self._fns_by_tier(hook))

    # --- registrars --------------------------------------------------------------------------
    def add_job_order_fn(self, plugin: str, fn: Callable[[JobInfo, JobInfo], int]) -> None:
        """Register a job comparison."""
        self._register("job_order", plugin, fn)

    def add_queue_order_fn(self, plugin: str, fn: Callable[[QueueInfo, QueueInfo], int]) -> None:
        """Register a queue comparison."""
        self._register("queue_order", plugin, fn)

    def add_task_order_fn(self, plugin: str, fn: Callable[[TaskInfo, TaskInfo], int]) -> None:
        """Register a task comparison."""
        self._register("task_order", plugin, fn)

    def add_victim_queue_order_fn(
        self, plugin: str, fn: Callable[[QueueInfo, QueueInfo, QueueInfo], int]
    ) -> None:
        """Register a comparison of victims' queues for a preemptor's queue."""
        self._register("victim_queue_order", plugin, fn)

    def add_preemptable_fn(
        self, plugin: str, fn: Callable[[TaskInfo, list[TaskInfo]], list[TaskInfo] | None]
    ) -> None:
        """Register a victim filter for preempt."""
        self._register("preemptable", plugin, fn)

    def add_reclaimable_fn(
        self, plugin: str, fn: Callable[[TaskInfo, list[TaskInfo]], list[TaskInfo] | None]
    ) -> None:
        """Register a victim filter for reclaim."""
        self._register("reclaimable", plugin, fn)

    def add_victim_tasks_fn(
        self, plugin: str, fn: Callable[[list[TaskInfo]], list[TaskInfo]]
    ) -> None:
        """Register a victim chooser (shuffle-style actions)."""
        self._register("victim_tasks", plugin, fn)

    def add_overused_fn(self, plugin: str, fn: Callable[[QueueInfo], bool]) -> None:
        """Register a queue-overused test."""
        self._register("overused", plugin, fn)

    def add_allocatable_fn(self, plugin: str, fn: Callable[[QueueInfo, TaskInfo], bool]) -> None:
        """Register a queue-quota test for one more task."""
        self._register("allocatable", plugin, fn)

    def add_preemptive_fn(self, plugin: str, fn: Callable[[QueueInfo, TaskInfo], bool]) -> None:
        """Register a test that a queue may reclaim for a task."""
        self._register("preemptive", plugin, fn)

    def add_job_enqueueable_fn(self, plugin: str, fn: Callable[[JobInfo], int]) -> None:
        """Register an enqueue vote."""
        self._register("job_enqueueable", plugin, fn)

    def add_job_enqueued_fn(self, plugin: str, fn: Callable[[JobInfo], None]) -> None:
        """Register a callback run when a job is admitted to Inqueue."""
        self._register("job_enqueued", plugin, fn)

    def add_job_ready_fn(self, plugin: str, fn: Callable[[JobInfo], bool]) -> None:
        """Register a job-ready test."""
        self._register("job_ready", plugin, fn)

    def add_job_pipelined_fn(self, plugin: str, fn: Callable[[JobInfo], int]) -> None:
        """Register a job-pipelined vote."""
        self._register("job_pipelined", plugin, fn)

    def add_job_valid_fn(self, plugin: str, fn: Callable[[JobInfo], ValidateResult | None]) -> None:
        """Register a job validity check."""
        self._register("job_valid", plugin, fn)

    def add_job_starving_fn(self, plugin: str, fn: Callable[[JobInfo], bool]) -> None:
        """Register a job-starving test."""
        self._register("job_starving", plugin, fn)

    def add_pre_predicate_fn(
        self, plugin: str, fn: Callable[[TaskInfo], PredicateStatus | None]
    ) -> None:
        """Register a per-task check run before node filtering."""
        self._register("pre_predicate", plugin, fn)

    def add_predicate_fn(
        self, plugin: str, fn: Callable[[TaskInfo, NodeInfo], PredicateStatus | None]
    ) -> None:
        """Register a per-node filter (also used to explain why a node was refused)."""
        self._register("predicate", plugin, fn)

    def add_batch_predicate_fn(
        self, plugin: str, fn: Callable[[TaskInfo, IntArray], BoolArray]
    ) -> None:
        """Register a vectorised filter: True where the node at that row may take the task."""
        self._register("batch_predicate", plugin, fn)

    def add_node_order_fn(self, plugin: str, fn: Callable[[TaskInfo, NodeInfo], float]) -> None:
        """Register a per-node score."""
        self._register("node_order", plugin, fn)

    def add_batch_node_order_fn(
        self, plugin: str, fn: Callable[[TaskInfo, IntArray], FloatArray]
    ) -> None:
        """Register a vectorised score over node rows."""
        self._register("batch_node_order", plugin, fn)

    def add_best_node_fn(
        self, plugin: str, fn: Callable[[TaskInfo, dict[float, list[NodeInfo]]], NodeInfo | None]
    ) -> None:
        """Register a chooser that may override the highest score."""
        self._register("best_node", plugin, fn)

    def add_event_handler(self, handler: EventHandler) -> None:
        """Register allocate/deallocate callbacks."""
        self.event_handlers.append(handler)

    # --- order dispatchers ---------------------------------------------------------------------
    def job_order_cmp(self, left: JobInfo, right: JobInfo) -> int:
        """Return the job comparison: plugins, then creation time, then uid."""
        return dispatch.first_nonzero(self._fns_by_tier("job_order"), left, right) or _tie(
            left, right
        )

    def job_order_fn(self, left: JobInfo, right: JobInfo) -> bool:
        """Return True when ``left`` goes before ``right``."""
        return self.job_order_cmp(left, right) < 0

    def queue_order_cmp(self, left: QueueInfo, right: QueueInfo) -> int:
        """Return the queue comparison: plugins, then creation time, then name."""
        return dispatch.first_nonzero(self._fns_by_tier("queue_order"), left, right) or _tie(
            left, right
        )

    def queue_order_fn(self, left: QueueInfo, right: QueueInfo) -> bool:
        """Return True when ``left`` is served before ``right``."""
        return self.queue_order_cmp(left, right) < 0

    def task_order_cmp(self, left: TaskInfo, right: TaskInfo) -> int:
        """Return the task comparison: plugins, then pod index, creation time, uid."""
        return dispatch.first_nonzero(
            self._fns_by_tier("task_order"), left, right
        ) or default_task_order(left, right)

    def task_order_fn(self, left: TaskInfo, right: TaskInfo) -> bool:
        """Return True when ``left`` is placed before ``right``."""
        return self.task_order_cmp(left, right) < 0

    def victim_queue_order_fn(
        self, left: QueueInfo, right: QueueInfo, preemptor: QueueInfo
    ) -> bool:
        """Return True when ``left``'s victims go first; default: reverse queue order."""
        tiers = self._fns_by_tier("victim_queue_order")
        for fns in tiers:
            for fn in fns:
                answer: int = fn(left, right, preemptor)
                if answer:
                    return answer < 0
        return not self.queue_order_fn(left, right)

    # --- victims -----------------------------------------------------------------------------
    def preemptable(self, preemptor: TaskInfo, candidates: Sequence[TaskInfo]) -> list[TaskInfo]:
        """Return the candidates the plugins let ``preemptor`` evict."""
        return dispatch.intersect_by_tier(self._fns_by_tier("preemptable"), preemptor, candidates)

    def reclaimable(self, reclaimer: TaskInfo, candidates: Sequence[TaskInfo]) -> list[TaskInfo]:
        """Return the candidates the plugins let ``reclaimer`` take back."""
        return dispatch.intersect_by_tier(self._fns_by_tier("reclaimable"), reclaimer, candidates)

    def victim_tasks(self, tasks: Sequence[TaskInfo]) -> list[TaskInfo]:
        """Return the union of victims named by the first tier that names any."""
        for fns in self._fns_by_tier("victim_tasks"):
            seen: dict[str, TaskInfo] = {}
            for fn in fns:
                for task in fn(list(tasks)):
                    seen.setdefault(task.uid, task)
            if seen:
                return list(seen.values())
        return []

    # --- queue and job tests -------------------------------------------------------------------
    def overused(self, queue: QueueInfo) -> bool:
        """Return True when some plugin says ``queue`` has used its share."""
        return dispatch.any_true(self._fns_by_tier("overused"), queue)

    def allocatable(self, queue: QueueInfo, task: TaskInfo) -> bool:
        """Return True when every plugin lets ``queue`` take ``task``."""
        return dispatch.all_pass(self._fns_by_tier("allocatable"), queue, task)

    def preemptive(self, queue: QueueInfo, task: TaskInfo) -> bool:
        """Return True when every plugin lets ``queue`` reclaim for ``task``."""
        return dispatch.all_pass(self._fns_by_tier("preemptive"), queue, task)

    def job_enqueueable(self, job: JobInfo) -> bool:
        """Return the enqueue vote for ``job``."""
        return dispatch.vote(self._fns_by_tier("job_enqueueable"), job)

    def job_enqueued(self, job: JobInfo) -> None:
        """Tell every plugin ``job`` was admitted."""
        for fns in self._fns_by_tier("job_enqueued"):
            for fn in fns:
                fn(job)

    def job_ready(self, job: JobInfo) -> bool:
        """Return True when every plugin says ``job`` may be bound."""
        return dispatch.all_pass(self._fns_by_tier("job_ready"), job)

    def job_pipelined(self, job: JobInfo) -> bool:
        """Return the pipelined vote for ``job``."""
        return dispatch.vote(self._fns_by_tier("job_pipelined"), job)

    def job_valid(self, job: JobInfo) -> ValidateResult | None:
        """Return the first refusal of ``job``, or None when valid."""
        answer: ValidateResult | None = dispatch.first_answer(self._fns_by_tier("job_valid"), job)
        return answer

    def job_starving(self, job: JobInfo) -> bool:
        """Return True when ``job`` wants more (first tier with a function decides)."""
        return dispatch.starving_by_tier(self._fns_by_tier("job_starving"), job)

    # --- nodes -----------------------------------------------------------------------------------
    def pre_predicate_fn(self, task: TaskInfo) -> PredicateStatus | None:
        """Return the first pre-filter failure of ``task``, or None."""
        answer: PredicateStatus | None = dispatch.first_answer(
            self._fns_by_tier("pre_predicate"), task
        )
        return answer

    def predicate_fn(self, task: TaskInfo, node: NodeInfo) -> PredicateStatus | None:
        """Return why ``node`` refuses ``task`` (first failing plugin), or None when it fits.

        Plugins that registered only a batch predicate are asked about this one row.
        """
        answer: PredicateStatus | None = dispatch.first_answer(
            self._fns_by_tier("predicate"), task, node
        )
        if answer is not None:
            return answer
        row = np.array([node.index], dtype=np.int64)
        for plugin, fn in self._batch_only("batch_predicate", "predicate"):
            if not bool(fn(task, row)[0]):
                return PredicateStatus(f"node(s) didn't pass {plugin}", plugin=plugin)
        return None

    def _only_form(self, hook: str, other: str) -> list[tuple[str, Callable[..., Any]]]:
        """Return enabled (plugin, fn) pairs of ``hook`` from plugins without an ``other`` form."""
        found = self._one_form.get((hook, other))
        if found is None:
            enabled = {id(fn) for fns in self._fns_by_tier(hook) for fn in fns}
            found = [
                (p, fn)
                for p, fn in self._hooks[hook].items()
                if id(fn) in enabled and p not in self._hooks[other]
            ]
            self._one_form[(hook, other)] = found
        return found

    def _batch_only(self, batch_hook: str, node_hook: str) -> list[tuple[str, Callable[..., Any]]]:
        """Return enabled (plugin, batch fn) pairs of plugins without the per-node form."""
        return self._only_form(batch_hook, node_hook)

    def _node_only(self, node_hook: str, batch_hook: str) -> list[tuple[str, Callable[..., Any]]]:
        """Return enabled (plugin, per-node fn) pairs of plugins without the batch form."""
        return self._only_form(node_hook, batch_hook)

    def _flat(self, hook: str) -> list[Callable[..., Any]]:
        """Return the enabled functions of ``hook`` in conf order, as one list (cached)."""
        found = self._flat_fns.get(hook)
        if found is None:
            found = [fn for fns in self._fns_by_tier(hook) for fn in fns]
            self._flat_fns[hook] = found
        return found

    def predicate_mask(self, task: TaskInfo, rows: IntArray) -> BoolArray:
        """Return, for each row in ``rows``, True when every enabled predicate passes."""
        batch = self._flat("batch_predicate")
        node_only = self._node_only("predicate", "batch_predicate")
        if len(batch) == 1 and not node_only:  # the usual shape: one vectorised predicate
            only: BoolArray = batch[0](task, rows)
            return only
        mask = np.ones(len(rows), dtype=np.bool_)
        for fn in batch:
            mask &= fn(task, rows)
        for _plugin, fn in node_only:
            nodes = self.node_list
            for i, row in enumerate(rows.tolist()):
                if mask[i] and fn(task, nodes[row]) is not None:
                    mask[i] = False
        return mask

    def node_order_fn(self, task: TaskInfo, node: NodeInfo) -> float:
        """Return the summed score of ``node`` for ``task`` (per-node and batch forms)."""
        score = dispatch.sum_scores(self._fns_by_tier("node_order"), task, node)
        row = np.array([node.index], dtype=np.int64)
        for fns in self._fns_by_tier("batch_node_order"):
            for fn in fns:
                score += float(fn(task, row)[0])
        return score

    def node_scores(self, task: TaskInfo, rows: IntArray) -> FloatArray:
        """Return the summed score of every row in ``rows`` for ``task``."""
        batch = self._flat("batch_node_order")
        per_node = self._flat("node_order")
        if batch:
            scores: FloatArray = np.array(batch[0](task, rows), dtype=np.float64)
            for fn in batch[1:]:
                scores += fn(task, rows)
        else:
            scores = np.zeros(len(rows), dtype=np.float64)
        if per_node:
            nodes = self.node_list
            for fn in per_node:
                scores += np.fromiter(
                    (fn(task, nodes[row]) for row in rows.tolist()), np.float64, len(rows)
                )
        return scores

    def best_node_fn(self, task: TaskInfo, scores: dict[float, list[NodeInfo]]) -> NodeInfo | None:
        """Return the node a BestNode plugin picks, or None to take the highest score."""
        answer: NodeInfo | None = dispatch.first_answer(
            self._fns_by_tier("best_node"), task, scores
        )
        return answer
