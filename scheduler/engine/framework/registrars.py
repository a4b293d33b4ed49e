"""The session's registrars (``add_*_fn``): what a plugin can register, and under which flag.

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
add_unified_evictable_fn    (ctx, [T]) -> ([T], vote) (0: abstain)     intersect, per tier
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
add_simulate_allocatable_fn (state, Q, T) -> bool                     all
add_simulate_predicate_fn   (state, T, N) -> PredicateStatus | None    first failure
add_simulate_add_task_fn    (state, T, T added, N) -> None             each called
add_simulate_remove_task_fn (state, T, T removed, N) -> None           each called
add_live_node_order_fn      (T, rows, scores) -> scores | None         chained
add_hypernode_order_fn      (J, [HyperNode name], ties) -> {name: f}   sum
add_hypernode_gradient_fn   (J, root, tier, allocated, min, purpose) -> [[name]]  first
add_sub_job_ready_fn        (SJ) -> bool                               all
add_sub_job_pipelined_fn    (SJ) -> PERMIT | ABSTAIN | REJECT          vote (none: permit)
add_sub_job_order_fn        (SJ, SJ) -> int                            first_nonzero
add_event_handler           EventHandler(allocate_func, deallocate_func)
==========================  =========================================  ======================

``live_node_order`` and the two HyperNode hooks serve network topology, the three sub-job hooks
``subGroupPolicy`` (a sub-job: one partition of a job, ``api/sub_job.py``; a job without a policy
is one sub-job). ``live_node_order`` is a score that changes with every placement anywhere in a
HyperNode (so it cannot sit in allocate's per-template cache): node selection hands it the
candidate rows with their scores so far (rows None: every row, with -inf where a node is no
candidate), and it returns them with its own score added (it may leave out rows too far behind to
win, which keeps the choice exact). ``hypernode_gradient`` returns the HyperNodes a hard-topology
job may try, grouped by tier, lowest first (``purpose`` ``SearchPurpose.EVICT``: the domains
gangpreempt/gangreclaim may evict in, widest first and capped by the plugin); ``hypernode_order``
scores the HyperNodes in which the job could be placed (``ties``: break ties at the top score as
the plugin does; False: the plain scores, which allocate uses to order its trials).

The simulate hooks serve topology-aware preemption: ``state`` is a dict the action creates per
preemptor (Volcano's CycleState) in which plugins keep what they simulate.

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

from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from scheduler.engine.api.types import PredicateStatus, ValidateResult
from scheduler.engine.framework.interface import EventHandler

if TYPE_CHECKING:
    from scheduler.engine.api.eviction import GangEvictionContext
    from scheduler.engine.api.job_info import JobInfo
    from scheduler.engine.api.node_info import NodeInfo
    from scheduler.engine.api.queue_info import QueueInfo
    from scheduler.engine.api.sub_job import SubJobInfo
    from scheduler.engine.api.task_info import TaskInfo
    from scheduler.engine.conf import SchedulerConf

__all__ = ["HOOK_FLAGS", "SearchPurpose", "SessionRegistrars"]

BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


class SearchPurpose(StrEnum):
    """Why a HyperNode gradient is asked for (Volcano's ``api.SearchPurpose``): to place a job
    (HyperNodes whose idle resources cover its minimum, narrowest first) or to evict for it
    (HyperNodes whose allocatable covers it, widest first, at most a plugin-set number)."""

    ALLOCATE = "allocate"
    EVICT = "evict"


# hook -> the conf flag(s) that enable it (None: always on; a tuple: on if any is on).
HOOK_FLAGS: dict[str, str | tuple[str, ...] | None] = {
    "job_order": "enableJobOrder",
    "queue_order": "enableQueueOrder",
    "task_order": "enableTaskOrder",
    "victim_queue_order": None,
    "preemptable": "enablePreemptable",
    "reclaimable": "enableReclaimable",
    "unified_evictable": None,  # gangpreempt/gangreclaim's victim filter: no flag in Volcano
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
    "simulate_allocatable": "enabledAllocatable",
    "simulate_predicate": "enablePredicate",
    "simulate_add_task": ("enablePreemptable", "enabledAllocatable"),
    "simulate_remove_task": ("enablePreemptable", "enabledAllocatable"),
    "live_node_order": "enableNodeOrder",
    "hypernode_order": "enabledHyperNodeOrder",
    "hypernode_gradient": "enabledHyperNodeGradient",
    "sub_job_ready": "enabledSubJobReady",
    "sub_job_pipelined": "enabledSubJobPipelined",
    "sub_job_order": "enabledSubJobOrder",
}


class SessionRegistrars:
    """Hook storage and the ``add_*_fn`` registrars; base of ``SessionPlugins``."""

    conf: SchedulerConf
    node_list: list[NodeInfo]
    jobs: dict[str, JobInfo]
    queues: dict[str, QueueInfo]

    def _init_hooks(self) -> None:
        self._hooks: dict[str, dict[str, Callable[..., Any]]] = {h: {} for h in HOOK_FLAGS}
        self._by_tier: dict[str, list[list[Callable[..., Any]]]] = {}
        self._one_form: dict[tuple[str, str], list[tuple[str, Callable[..., Any]]]] = {}
        self._flat_fns: dict[str, list[Callable[..., Any]]] = {}
        # hook -> plugin_order_keys(hook) (allocate asks once per job; cleared on registration)
        self._keys_cache: dict[str, list[Callable[[Any], Any]] | None] = {}
        self.event_handlers: list[EventHandler] = []
        # hook -> plugin -> the one-row form of a batch function (see ``row_fns``)
        self._row_forms: dict[str, dict[str, Callable[..., Any]]] = {
            "batch_predicate": {},
            "batch_node_order": {},
        }
        self._order_keys: dict[str, dict[str, Callable[[Any], Any] | None]] = {
            "task_order": {},
            "job_order": {},
            "queue_order": {},
        }

    def _register(self, hook: str, plugin: str, fn: Callable[..., Any]) -> None:
        self._hooks[hook][plugin] = fn
        self._by_tier.pop(hook, None)
        self._one_form.clear()
        self._flat_fns.clear()
        self._keys_cache.clear()

    def _fns_by_tier(self, hook: str) -> list[list[Callable[..., Any]]]:
        """Return the enabled functions of ``hook``, one list per tier, in conf order."""
        cached = self._by_tier.get(hook)
        if cached is not None:
            return cached
        tiers = [[fn for _name, fn in tier] for tier in self._named_fns_by_tier(hook)]
        self._by_tier[hook] = tiers
        return tiers

    def _named_fns_by_tier(self, hook: str) -> list[list[tuple[str, Callable[..., Any]]]]:
        """Return ``_fns_by_tier(hook)`` with each function's plugin name (not cached: for the
        hooks whose answer says which plugin gave it, such as shuffle's victims)."""
        flags = HOOK_FLAGS[hook]
        fns = self._hooks[hook]
        tiers: list[list[tuple[str, Callable[..., Any]]]] = []
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
                    chosen.append((option.name, fn))
            tiers.append(chosen)
        return tiers

    def plugin_order_keys(self, hook: str) -> list[Callable[[Any], Any]] | None:
        """Return the sort keys of ``hook``'s enabled order functions, or None if one has none.

        Comparing the tuples of these keys orders items as the comparator chain does, since each
        key orders exactly as its plugin's comparison.
        """
        if hook in self._keys_cache:
            return self._keys_cache[hook]
        enabled = {id(fn) for fns in self._fns_by_tier(hook) for fn in fns}
        given = self._order_keys[hook]
        keys: list[Callable[[Any], Any]] = []
        for tier in self.conf.tiers:
            for option in tier.plugins:
                fn = self._hooks[hook].get(option.name)
                if fn is None or id(fn) not in enabled:
                    continue
                key = given.get(option.name)
                if key is None:
                    self._keys_cache[hook] = None
                    return None
                keys.append(key)
        self._keys_cache[hook] = keys
        return keys

    def task_order_key(self) -> Callable[[TaskInfo], tuple[Any, ...]] | None:
        """Return a sort key equal to the plugins' task order, or None if one has no key."""
        keys = self.plugin_order_keys("task_order")
        if keys is None:
            return None
        return lambda task: tuple(k(task) for k in keys)

    def _set_row_form(self, hook: str, plugin: str, row: Callable[..., Any] | None) -> None:
        if row is None:
            self._row_forms[hook].pop(plugin, None)
        else:
            self._row_forms[hook][plugin] = row

    def row_fns(self, hook: str) -> list[Callable[..., Any]] | None:
        """Return the one-row forms of ``hook``'s enabled batch functions, or None if one has none.

        In the order of the enabled batch functions (conf order). Node selection calls them for
        the one node a pod just took instead of building a one-element row array per plugin.
        """
        forms = self._row_forms[hook]
        enabled = {id(fn) for fns in self._fns_by_tier(hook) for fn in fns}
        found: list[Callable[..., Any]] = []
        for tier in self.conf.tiers:
            for option in tier.plugins:
                fn = self._hooks[hook].get(option.name)
                if fn is None or id(fn) not in enabled:
                    continue
                form = forms.get(option.name)
                if form is None:
                    return None
                found.append(form)
        return found

    def has_fns(self, hook: str) -> bool:
        """Return True when some enabled plugin answers ``hook``."""
        return any(self._fns_by_tier(hook))

    # --- registrars --------------------------------------------------------------------------
    def add_job_order_fn(
        self,
        plugin: str,
        fn: Callable[[JobInfo, JobInfo], int],
        *,
        key: Callable[[JobInfo], Any] | None = None,
    ) -> None:
        """Register a job comparison, optionally with an equivalent sort key.

        ``key(job)`` must order jobs exactly as ``fn`` does and may change only when that job's
        own tasks change. When every enabled job order has a key, allocate and enqueue order
        their job queues by key tuples, computed once per push, instead of running the
        comparator chain on every heap comparison (10,000 one-pod jobs: ~450,000 comparisons).
        """
        self._register("job_order", plugin, fn)
        self._order_keys["job_order"][plugin] = key

    def add_queue_order_fn(
        self,
        plugin: str,
        fn: Callable[[QueueInfo, QueueInfo], int],
        *,
        key: Callable[[QueueInfo], Any] | None = None,
    ) -> None:
        """Register a queue comparison, optionally with an equivalent sort key.

        As for job orders: ``key(queue)`` must order queues exactly as ``fn`` does and may change
        only when that queue's own jobs change (``Session.queue_order_key``).
        """
        self._register("queue_order", plugin, fn)
        self._order_keys["queue_order"][plugin] = key

    def add_task_order_fn(
        self,
        plugin: str,
        fn: Callable[[TaskInfo, TaskInfo], int],
        *,
        key: Callable[[TaskInfo], Any] | None = None,
    ) -> None:
        """Register a task comparison, optionally with an equivalent sort key.

        ``key(task)`` must order tasks exactly as ``fn`` does (``fn(a, b) < 0`` iff
        ``key(a) < key(b)``, 0 iff equal). When every enabled task order has a key, a job's tasks
        are sorted by key instead of by pairwise comparisons (a 100-pod job: 100 key calls
        instead of ~700 comparisons).
        """
        self._register("task_order", plugin, fn)
        self._order_keys["task_order"][plugin] = key

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

    def add_unified_evictable_fn(
        self,
        plugin: str,
        fn: Callable[[GangEvictionContext, list[TaskInfo]], tuple[list[TaskInfo], int]],
    ) -> None:
        """Register a victim filter for gangpreempt and gangreclaim (``unified_evictable``)."""
        self._register("unified_evictable", plugin, fn)

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
        self,
        plugin: str,
        fn: Callable[[TaskInfo, IntArray], BoolArray],
        *,
        row: Callable[[TaskInfo, int], bool] | None = None,
    ) -> None:
        """Register a vectorised filter: True where the node at that row may take the task.

        ``row(task, row)``, when given, must answer ``bool(fn(task, [row])[0])`` for one row.
        """
        self._register("batch_predicate", plugin, fn)
        self._set_row_form("batch_predicate", plugin, row)

    def add_node_order_fn(self, plugin: str, fn: Callable[[TaskInfo, NodeInfo], float]) -> None:
        """Register a per-node score."""
        self._register("node_order", plugin, fn)

    def add_batch_node_order_fn(
        self,
        plugin: str,
        fn: Callable[[TaskInfo, IntArray], FloatArray],
        *,
        row: Callable[[TaskInfo, int], float] | None = None,
    ) -> None:
        """Register a vectorised score over node rows.

        ``row(task, row)``, when given, must answer ``float(fn(task, [row])[0])`` for one row.
        """
        self._register("batch_node_order", plugin, fn)
        self._set_row_form("batch_node_order", plugin, row)

    def add_best_node_fn(
        self, plugin: str, fn: Callable[[TaskInfo, dict[float, list[NodeInfo]]], NodeInfo | None]
    ) -> None:
        """Register a chooser that may override the highest score."""
        self._register("best_node", plugin, fn)

    def add_simulate_allocatable_fn(
        self, plugin: str, fn: Callable[[dict[str, Any], QueueInfo, TaskInfo], bool]
    ) -> None:
        """Register a queue-quota test on a simulated state."""
        self._register("simulate_allocatable", plugin, fn)

    def add_simulate_predicate_fn(
        self,
        plugin: str,
        fn: Callable[[dict[str, Any], TaskInfo, NodeInfo], PredicateStatus | None],
    ) -> None:
        """Register a node filter on a simulated state."""
        self._register("simulate_predicate", plugin, fn)

    def add_simulate_add_task_fn(
        self,
        plugin: str,
        fn: Callable[[dict[str, Any], TaskInfo, TaskInfo, NodeInfo], None],
    ) -> None:
        """Register a callback adding a task to a simulated state."""
        self._register("simulate_add_task", plugin, fn)

    def add_simulate_remove_task_fn(
        self,
        plugin: str,
        fn: Callable[[dict[str, Any], TaskInfo, TaskInfo, NodeInfo], None],
    ) -> None:
        """Register a callback removing a task from a simulated state."""
        self._register("simulate_remove_task", plugin, fn)

    def add_live_node_order_fn(
        self,
        plugin: str,
        fn: Callable[[TaskInfo, IntArray | None, FloatArray], FloatArray | None],
    ) -> None:
        """Register a score node selection adds at each choice: ``fn(task, rows, scores)``
        returns ``scores`` with its own added (None: nothing to add)."""
        self._register("live_node_order", plugin, fn)

    def add_hypernode_order_fn(
        self, plugin: str, fn: Callable[[JobInfo, list[str], bool], dict[str, float]]
    ) -> None:
        """Register a score of candidate HyperNodes for a job (Volcano's HyperNodeOrderFn)."""
        self._register("hypernode_order", plugin, fn)

    def add_hypernode_gradient_fn(
        self,
        plugin: str,
        fn: Callable[[JobInfo, str, int, str, IntArray | None, SearchPurpose], list[list[str]]],
    ) -> None:
        """Register the HyperNode search of hard-topology jobs (Volcano's HyperNodeGradientFn):
        ``(job, search root, highest tier allowed, job's HyperNode, minimum request vector,
        purpose)``."""
        self._register("hypernode_gradient", plugin, fn)

    def add_sub_job_ready_fn(self, plugin: str, fn: Callable[[SubJobInfo], bool]) -> None:
        """Register a sub-job-ready test (jobs with a subGroupPolicy)."""
        self._register("sub_job_ready", plugin, fn)

    def add_sub_job_pipelined_fn(self, plugin: str, fn: Callable[[SubJobInfo], int]) -> None:
        """Register a sub-job-pipelined vote."""
        self._register("sub_job_pipelined", plugin, fn)

    def add_sub_job_order_fn(
        self, plugin: str, fn: Callable[[SubJobInfo, SubJobInfo], int]
    ) -> None:
        """Register a sub-job comparison (negative: left first)."""
        self._register("sub_job_order", plugin, fn)

    def add_event_handler(self, handler: EventHandler) -> None:
        """Register allocate/deallocate callbacks."""
        self.event_handlers.append(handler)
