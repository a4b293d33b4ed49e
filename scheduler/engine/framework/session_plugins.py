"""The session's dispatchers: each asks the enabled plugins and combines their answers.

Volcano's counterpart: the dispatch half of ``pkg/scheduler/framework/session_plugins.go``. Each
dispatcher takes the enabled functions of one hook (``_fns_by_tier``, see ``registrars.py`` for
what can be registered and under which flag) and hands them to one combinator of ``dispatch.py``.
Order ties fall back to Volcano's defaults: creation time then uid (jobs, queues), pod index then
creation time then uid (tasks).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from scheduler.engine.api.types import PredicateStatus, ValidateResult
from scheduler.engine.framework import dispatch
from scheduler.engine.framework.registrars import (
    HOOK_FLAGS,
    BoolArray,
    FloatArray,
    IntArray,
    SearchPurpose,
    SessionRegistrars,
)
from scheduler.engine.framework.registry import get_plugin_class

if TYPE_CHECKING:
    from scheduler.engine.api.eviction import GangEvictionContext
    from scheduler.engine.api.job_info import JobInfo
    from scheduler.engine.api.node_info import NodeInfo
    from scheduler.engine.api.queue_info import QueueInfo
    from scheduler.engine.api.sub_job import SubJobInfo
    from scheduler.engine.api.task_info import TaskInfo

__all__ = ["HOOK_FLAGS", "SessionPlugins", "default_task_order", "pod_index"]


def _tie(left: Any, right: Any) -> int:
    lt, rt = left.creation_timestamp, right.creation_timestamp
    if lt is not None and rt is not None and lt != rt:
        return -1 if lt < rt else 1
    lu, ru = left.uid, right.uid
    return -1 if lu < ru else (1 if lu > ru else 0)


def pod_index(name: str) -> int | None:
    """Return the trailing index of a pod named ``<job>-<task>-<n>``, or None."""
    parts = name.split("-")
    if len(parts) < 3:
        return None
    try:
        return int(parts[-1])
    except ValueError:
        return None


def default_task_order(left: TaskInfo, right: TaskInfo) -> int:
    """Return Volcano's default task comparison: pod index, then creation time, then uid."""
    li, ri = pod_index(left.name), pod_index(right.name)
    if li is not None and ri is not None and li != ri:
        return -1 if li < ri else 1
    return _tie(left, right)


def _order_key(
    keys: list[Callable[[Any], Any]] | None, items: list[Any]
) -> Callable[[Any], tuple[Any, ...]] | None:
    """Return the plugin keys followed by ``_tie`` as a key, or None when that is no key.

    ``_tie`` is a total order only when all of ``items`` or none of them have a creation time.
    """
    if keys is None:
        return None
    stamped = [i.creation_timestamp is not None for i in items].count(True)
    if stamped == len(items):
        # Spelled out for the usual one to three plugin keys: a key is computed per heap push.
        if len(keys) == 1:
            (k0,) = keys
            return lambda item: (k0(item), item.creation_timestamp, item.uid)
        if len(keys) == 2:
            k0, k1 = keys
            return lambda item: (k0(item), k1(item), item.creation_timestamp, item.uid)
        if len(keys) == 3:
            k0, k1, k2 = keys
            return lambda item: (k0(item), k1(item), k2(item), item.creation_timestamp, item.uid)

        def key(item: Any) -> tuple[Any, ...]:
            return (*[k(item) for k in keys], item.creation_timestamp, item.uid)

        return key
    if stamped == 0:
        return lambda item: (*[k(item) for k in keys], item.uid)
    return None


class SessionPlugins(SessionRegistrars):
    """The dispatchers; mixed into ``Session``."""

    # --- order dispatchers ---------------------------------------------------------------------
    def job_order_cmp(self, left: JobInfo, right: JobInfo) -> int:
        """Return the job comparison: plugins, then creation time, then uid."""
        return dispatch.first_nonzero(self._fns_by_tier("job_order"), left, right) or _tie(
            left, right
        )

    def job_order_key(self) -> Callable[[JobInfo], tuple[Any, ...]] | None:
        """Return a sort key ordering this session's jobs as ``job_order_cmp``, or None.

        None when an enabled job order has no key, or when only some jobs have a creation time
        (the tie-break is then not a total order, so only the comparator reproduces it).
        """
        return _order_key(self.plugin_order_keys("job_order"), list(self.jobs.values()))

    def queue_order_key(self) -> Callable[[QueueInfo], tuple[Any, ...]] | None:
        """Return a sort key ordering the session's queues as ``queue_order_cmp``, or None.

        Only queues holding a job are ever ordered, so only their creation times count.
        """
        names = {job.queue for job in self.jobs.values()}
        holding = [q for name, q in self.queues.items() if name in names]
        return _order_key(self.plugin_order_keys("queue_order"), holding)

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

    def reclaim_refused_for_good(self, reclaimer: TaskInfo, candidates: Sequence[TaskInfo]) -> bool:
        """Return True when every tier with reclaimable functions holds a plugin whose answer
        depends only on the candidates (``Plugin.static_victims``: pdb, cdp, conformance) and
        that plugin allows none of ``candidates``.

        Each such tier then ends with no victims whatever its other plugins say (an empty
        answer ends a tier), so ``reclaimable`` stays empty for these candidates for the rest
        of the session: reclaim need not ask again on that node. Cheap to ask only after
        ``reclaimable`` found no victims.
        """
        any_tier = False
        for named in self._named_fns_by_tier("reclaimable"):
            if not named:
                continue
            any_tier = True
            refused = False
            for plugin, fn in named:
                cls = get_plugin_class(plugin)
                if cls is None or not getattr(cls, "static_victims", False):
                    continue
                answer = fn(reclaimer, list(candidates))
                if answer is not None and not answer:
                    refused = True
                    break
            if not refused:
                return False
        return any_tier

    def unified_evictable(
        self, ctx: GangEvictionContext, candidates: Sequence[TaskInfo]
    ) -> list[TaskInfo]:
        """Return the candidates the plugins let gangpreempt/gangreclaim evict.

        Volcano's ``UnifiedEvictable``: per tier, plugins that do not abstain intersect their
        answers; a plugin allowing none empties the tier, which then decides nothing, and the
        next tier is asked. The first tier with a non-empty answer decides; none: no victims.
        """
        given = list(candidates)
        for fns in self._fns_by_tier("unified_evictable"):
            victims: list[TaskInfo] | None = None
            for fn in fns:
                allowed, vote = fn(ctx, given)
                if vote == 0:
                    continue
                if not allowed:
                    victims = None
                    break
                if victims is None:
                    victims = list(allowed)
                else:
                    kept = {t.uid for t in allowed}
                    # an empty intersection is Go's nil: the next answer starts again
                    victims = [t for t in victims if t.uid in kept] or None
            if victims is not None:
                return victims
        return []

    def victim_tasks(self, tasks: Sequence[TaskInfo]) -> list[TaskInfo]:
        """Return the union of victims named by the first tier that names any."""
        return [task for task, _plugin in self.named_victim_tasks(tasks)]

    def named_victim_tasks(self, tasks: Sequence[TaskInfo]) -> list[tuple[TaskInfo, str]]:
        """Return ``victim_tasks`` with the plugin that named each (the first, in conf order),
        so an eviction can say who chose it ("shuffle (tdm)")."""
        for named in self._named_fns_by_tier("victim_tasks"):
            seen: dict[str, tuple[TaskInfo, str]] = {}
            for plugin, fn in named:
                for task in fn(list(tasks)):
                    seen.setdefault(task.uid, (task, plugin))
            if seen:
                return list(seen.values())
        return []

    # --- queue and job tests -------------------------------------------------------------------
    # overused, allocatable, job_ready, pre_predicate_fn are asked per placed pod: they loop over
    # the cached flat list (tiers do not matter to any / all / first answer, only conf order).
    def overused(self, queue: QueueInfo) -> bool:
        """Return True when some plugin says ``queue`` has used its share (``dispatch.any_true``)."""
        for fn in self._flat("overused"):  # noqa: SIM110 - cheaper than any() over a generator
            if fn(queue):
                return True
        return False

    def allocatable(self, queue: QueueInfo, task: TaskInfo) -> bool:
        """Return True when every plugin lets ``queue`` take ``task`` (``dispatch.all_pass``)."""
        for fn in self._flat("allocatable"):  # noqa: SIM110 - cheaper than all() over a generator
            if not fn(queue, task):
                return False
        return True

    def preemptive(self, queue: QueueInfo, task: TaskInfo) -> bool:
        """Return True when every plugin lets ``queue`` reclaim for ``task``."""
        return dispatch.all_pass(self._fns_by_tier("preemptive"), queue, task)

    def job_enqueueable(self, job: JobInfo) -> bool:
        """Return the enqueue vote for ``job``."""
        return dispatch.vote(self._fns_by_tier("job_enqueueable"), job)

    def job_enqueued(self, job: JobInfo) -> None:
        """Tell every plugin ``job`` was admitted (in conf order)."""
        for fn in self._flat("job_enqueued"):
            fn(job)

    def job_ready(self, job: JobInfo) -> bool:
        """Return True when every plugin says ``job`` may be bound (``dispatch.all_pass``)."""
        for fn in self._flat("job_ready"):  # noqa: SIM110 - cheaper than all() over a generator
            if not fn(job):
                return False
        return True

    def job_pipelined(self, job: JobInfo) -> bool:
        """Return the pipelined vote for ``job``."""
        return dispatch.vote(self._fns_by_tier("job_pipelined"), job)

    def job_valid(self, job: JobInfo) -> ValidateResult | None:
        """Return the first refusal of ``job``, or None when valid (``dispatch.first_answer``).

        Asked of every job at open and again by allocate: it loops over the cached flat list.
        """
        for fn in self._flat("job_valid"):
            answer: ValidateResult | None = fn(job)
            if answer is not None:
                return answer
        return None

    def job_starving(self, job: JobInfo) -> bool:
        """Return True when ``job`` wants more (first tier with a function decides)."""
        return dispatch.starving_by_tier(self._fns_by_tier("job_starving"), job)

    # --- nodes -----------------------------------------------------------------------------------
    def pre_predicate_fn(self, task: TaskInfo) -> PredicateStatus | None:
        """Return the first pre-filter failure of ``task``, or None (``dispatch.first_answer``)."""
        for fn in self._flat("pre_predicate"):
            answer: PredicateStatus | None = fn(task)
            if answer is not None:
                return answer
        return None

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

    def flat_fns(self, hook: str) -> list[Callable[..., Any]]:
        """Return the enabled functions of ``hook`` in conf order, as one list (do not modify)."""
        return self._flat(hook)

    def node_only_fns(
        self, node_hook: str, batch_hook: str
    ) -> list[tuple[str, Callable[..., Any]]]:
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
        if batch:  # a fresh array: the plugins' answers may be their own, never written to
            mask: BoolArray = np.array(batch[0](task, rows), dtype=np.bool_)
            for fn in batch[1:]:
                mask &= fn(task, rows)
        else:
            mask = np.ones(len(rows), dtype=np.bool_)
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

    # --- simulation (topology-aware preemption) ------------------------------------------------
    def simulate_allocatable(self, state: dict[str, Any], queue: QueueInfo, task: TaskInfo) -> bool:
        """Return True when every plugin lets ``queue`` take ``task`` in ``state``."""
        return dispatch.all_pass(self._fns_by_tier("simulate_allocatable"), state, queue, task)

    def simulate_predicate(
        self, state: dict[str, Any], task: TaskInfo, node: NodeInfo
    ) -> PredicateStatus | None:
        """Return the first simulated refusal of ``node`` for ``task``, or None."""
        answer: PredicateStatus | None = dispatch.first_answer(
            self._fns_by_tier("simulate_predicate"), state, task, node
        )
        return answer

    def simulate_add_task(
        self, state: dict[str, Any], task: TaskInfo, added: TaskInfo, node: NodeInfo
    ) -> None:
        """Tell every plugin ``added`` is back on ``node`` in ``state``."""
        for fn in self._flat("simulate_add_task"):
            fn(state, task, added, node)

    def simulate_remove_task(
        self, state: dict[str, Any], task: TaskInfo, removed: TaskInfo, node: NodeInfo
    ) -> None:
        """Tell every plugin ``removed`` is off ``node`` in ``state``."""
        for fn in self._flat("simulate_remove_task"):
            fn(state, task, removed, node)

    # --- network topology (HyperNodes) ----------------------------------------------------------
    def hypernode_gradient(
        self,
        job: JobInfo,
        root: str,
        tier: int,
        allocated: str,
        minimum: IntArray | None,
        purpose: SearchPurpose = SearchPurpose.ALLOCATE,
    ) -> list[list[str]]:
        """Return the HyperNodes ``job`` may try under ``root``, by tier (the first plugin's
        answer; without one, ``root`` alone), for placing it or evicting for it."""
        for fn in self._flat("hypernode_gradient"):
            answer: list[list[str]] = fn(job, root, tier, allocated, minimum, purpose)
            return answer
        return [[root]]

    def hypernode_order(
        self, job: JobInfo, names: list[str], *, ties: bool = True
    ) -> dict[str, float]:
        """Return the summed HyperNode scores for ``job`` (0 where no plugin scores); without
        ``ties``, the plain scores (no tie-break at the top)."""
        total = dict.fromkeys(names, 0.0)
        for fn in self._flat("hypernode_order"):
            for name, score in fn(job, names, ties).items():
                total[name] = total.get(name, 0.0) + score
        return total

    # --- sub-jobs (subGroupPolicy) ----------------------------------------------------------------
    def sub_job_ready(self, job: JobInfo, sub_job: SubJobInfo) -> bool:
        """Return whether ``sub_job`` may be bound on its own (JobReady for a job without a
        subGroupPolicy, whose one sub-job is the whole job)."""
        if not job.sub_group_policy:
            return self.job_ready(job)
        for fn in self._flat("sub_job_ready"):  # noqa: SIM110 - cheaper than all()
            if not fn(sub_job):
                return False
        return True

    def sub_job_pipelined(self, job: JobInfo, sub_job: SubJobInfo) -> bool:
        """Return the pipelined vote for ``sub_job`` (no enabled plugin: pipelined)."""
        if not job.sub_group_policy:
            return self.job_pipelined(job)
        for fns in self._fns_by_tier("sub_job_pipelined"):
            permitted = False
            for fn in fns:
                answer = fn(sub_job)
                if answer < 0:
                    return False
                permitted = permitted or answer > 0
            if permitted:
                return True
        return True

    def sub_job_order_cmp(self, left: SubJobInfo, right: SubJobInfo) -> int:
        """Return the sub-job comparison: plugins, then the first match value, then uid."""
        answer = dispatch.first_nonzero(self._fns_by_tier("sub_job_order"), left, right)
        if answer:
            return int(answer)
        if left.match_index != right.match_index:
            return -1 if left.match_index < right.match_index else 1
        return -1 if left.uid < right.uid else int(left.uid > right.uid)

    def hypernode_gradient_for_sub_job(
        self,
        job: JobInfo,
        sub_job: SubJobInfo,
        root: str,
        purpose: SearchPurpose = SearchPurpose.ALLOCATE,
    ) -> list[list[str]]:
        """Return the HyperNodes ``sub_job`` may try under ``root`` (Volcano's
        HyperNodeGradientForSubJobFn): a hard-topology sub-job searches from its own HyperNode
        within its tier, its pending pods' summed request as the filter; any other sub-job has
        ``root`` alone. A hard sub-job no HyperNode can take gets nothing, never ``root``."""
        spec = sub_job.network_topology
        if spec is None or spec.mode != "hard" or spec.highest_tier_allowed is None:
            return [[root]]
        minimum: IntArray | None = None
        for task in sub_job.pending():
            if task.resreq_vec is not None:
                minimum = task.resreq_vec.copy() if minimum is None else minimum + task.resreq_vec
        return self.hypernode_gradient(
            job, root, spec.highest_tier_allowed, sub_job.allocated_hypernode, minimum, purpose
        )

    def best_node_fn(self, task: TaskInfo, scores: dict[float, list[NodeInfo]]) -> NodeInfo | None:
        """Return the node a BestNode plugin picks, or None to take the highest score."""
        answer: NodeInfo | None = dispatch.first_answer(
            self._fns_by_tier("best_node"), task, scores
        )
        return answer
