"""network-topology-aware plugin: keep a job's pods close in the network (HyperNodes).

Volcano's counterpart: ``pkg/scheduler/plugins/network-topology-aware``. Three hooks:

- HyperNode gradient (``enabledHyperNodeGradient``): the HyperNodes a hard-topology job may try,
  breadth-first from the search root, those of tier <= highestTierAllowed whose idle or
  future-idle resources (as the session opened) cover the job's minimum, grouped by tier from the
  lowest. A job already placed in a HyperNode searches from its highest ancestor within the
  allowed tier, and skips the resource filter. Asked for eviction (``SearchPurpose.EVICT``, by
  gangpreempt/gangreclaim) the filter is the HyperNode's allocatable instead, and the tiers come
  widest first, at most ``hypernode.gradient.evict.max-hypernodes`` HyperNodes in all (8 when
  unset or not positive; within a tier, the last ones are kept).
- HyperNode order (``enabledHyperNodeOrder``): HyperNode-level binpacking of all the job's pod
  requests over the HyperNode's allocatable and current use (0 when it would overflow), ties at
  the top broken by the share of the job's pods already there; x 100 x ``weight``.
- Node order (``enableNodeOrder``), a *live* score (it changes with every placement in a
  HyperNode, so node selection adds it at each choice rather than caching it per template):
  pods of topology jobs score 1 on a node of their job's HyperNode, else
  (top tier - LCA tier) / (top tier - lowest tier), with the same tie-break by pods already there;
  other pods score HyperNode-level binpacking per tier, weighted ``fading^(tier-1)``.

Nothing is registered for a cluster without HyperNodes whose jobs carry no networkTopology
(``ssn.hypernodes`` is None): the virtual top HyperNode alone scores every node the same.

Usage per HyperNode is kept as one ``(HyperNodes, resources)`` array updated by the event
handler (a placed pod adds its request to every HyperNode holding its node).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from scheduler.engine.api.hypernode import HyperNodeTree
from scheduler.engine.api.resource import CPU, MEMORY
from scheduler.engine.api.sub_job import sub_job_of
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.framework import ArgSpec, SearchPurpose, register_plugin
from scheduler.engine.framework.interface import Event, EventHandler, Plugin
from scheduler.engine.plugins.network_topology_aware_binpack import (
    HyperNodeBinpacking,
    NormalPodState,
    TierGroups,
)
from scheduler.engine.util.row_fit import rows_fit

if TYPE_CHECKING:
    from scheduler.engine.api.job_info import JobInfo
    from scheduler.engine.framework.session import Session

__all__ = ["NetworkTopologyAwarePlugin", "reverse_and_cap"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

NAME = "network-topology-aware"
WEIGHT = "weight"
BINPACK_CPU = "hypernode.binpack.cpu"
BINPACK_MEMORY = "hypernode.binpack.memory"
BINPACK_RESOURCES = "hypernode.binpack.resources"
BINPACK_RESOURCE_PREFIX = "hypernode.binpack.resources."
NORMAL_POD_ENABLE = "hypernode.binpack.normal-pod.enable"
NORMAL_POD_FADING = "hypernode.binpack.normal-pod.fading"
EVICT_MAX_HYPERNODES = "hypernode.gradient.evict.max-hypernodes"
DEFAULT_EVICT_MAX_HYPERNODES = 8
MAX_NODE_SCORE = 100.0
# Up to this many candidate rows, the LCA scores are taken in plain floats (cheaper than numpy)
FEW_ROWS = 64


def _weight(value: int) -> int:
    """Return ``value``, or 1 when negative (Volcano resets negative weights to 1)."""
    return 1 if value < 0 else value


@register_plugin
class NetworkTopologyAwarePlugin(HyperNodeBinpacking, Plugin):
    """Places hard-topology jobs within one HyperNode and keeps every job's pods close."""

    name = NAME
    arguments_schema = (
        ArgSpec(WEIGHT, int, 1, help="multiplier of the 0-100 network topology scores"),
        ArgSpec(BINPACK_CPU, int, 1, help="weight of cpu in HyperNode binpacking"),
        ArgSpec(BINPACK_MEMORY, int, 1, help="weight of memory in HyperNode binpacking"),
        ArgSpec(BINPACK_RESOURCES, str, "", help="comma-separated extra resources to binpack"),
        ArgSpec(BINPACK_RESOURCE_PREFIX, int, 1, prefix=True, help="weight of one extra resource"),
        ArgSpec(NORMAL_POD_ENABLE, bool, True, help="binpack pods without networkTopology too"),
        ArgSpec(NORMAL_POD_FADING, float, 0.8, help="weight of tier t is fading^(t-1)"),
        ArgSpec(
            EVICT_MAX_HYPERNODES,
            int,
            DEFAULT_EVICT_MAX_HYPERNODES,
            help="most HyperNodes tried when evicting for a job (not positive: 8)",
        ),
    )

    def on_session_open(self, ssn: Session) -> None:
        """Build the per-HyperNode accounting and register the hooks (none without topology)."""
        tree = ssn.hypernodes
        if tree is None:
            return
        args = self.arguments
        self._ssn = ssn
        self._tree = tree
        self._scale = MAX_NODE_SCORE * _weight(args.get_int(WEIGHT))
        self._normal = args.get_bool(NORMAL_POD_ENABLE)
        fading = args.get_float(NORMAL_POD_FADING)
        self._fading = 0.8 if fading < 0 else fading
        self._column_weights = self._binpack_weights(ssn)
        self._evict_max = self.evict_max_hypernodes()
        # HyperNodes in (tier, name) order; index len(names) stands for "none".
        self._names = sorted(tree.tier, key=lambda h: (tree.tier[h], h))
        self._index = {name: i for i, name in enumerate(self._names)}
        arrays = ssn.arrays
        h, r = len(self._names), arrays.allocatable.shape[1]
        self._allocatable = np.zeros((h, r), dtype=np.int64)
        self._used_array = np.zeros((h, r), dtype=np.int64)
        self._idle = np.zeros((h, r), dtype=np.int64)
        self._future_idle = np.zeros((h, r), dtype=np.int64)
        for i, name in enumerate(self._names):
            rows = tree.rows[name]
            if len(rows):
                self._allocatable[i] = arrays.allocatable[rows].sum(axis=0)
                self._used_array[i] = arrays.used[rows].sum(axis=0)
                self._idle[i] = arrays.idle[rows].sum(axis=0)
                self._future_idle[i] = arrays.future_idle[rows].sum(axis=0)
        self._allocatable_list: list[list[int]] = self._allocatable.tolist()
        # Use per HyperNode, kept as plain lists (a placement touches a handful of HyperNodes:
        # list arithmetic beats numpy's per-call cost); ``_used`` is its array, rebuilt on demand.
        self._used_list: list[list[int]] = self._used_array.tolist()
        self._used_at = 0  # len(self._changes) when ``_used_array`` was last rebuilt
        # (request vector, sign, its nonzero columns) of the last pod accounted
        self._asked_last: tuple[IntArray, int, list[tuple[int, int]]] | None = None
        self._holding = [
            np.array([self._index[x] for x in held], dtype=np.int64) for held in tree.containing
        ]
        self._holding_list = [held.tolist() for held in self._holding]
        none = len(self._names)
        self._leaf = np.array(
            [self._index[x] if x else none for x in tree.leaf_of_row], dtype=np.int64
        )
        self._lca_tables: dict[str, FloatArray] = {}
        self._lca_lists: dict[str, list[float]] = {}  # the same tables as plain floats
        self._leaf_list: list[int] = self._leaf.tolist()
        self._tier_of = np.array([tree.tier[n] for n in self._names], dtype=np.int64)
        # hypernode -> indices of it and every HyperNode below it (for the LCA tables)
        self._subtree: dict[str, IntArray] = {}
        # HyperNodes whose use changed, in order (binpacking caches catch up from it)
        self._changes: list[int] = []
        self._normal_cache: dict[tuple[object, ...], NormalPodState] = {}
        self._normal_last: tuple[IntArray, NormalPodState] | None = None
        # job uid -> pods per lowest-tier HyperNode index (kept by the event handler once made)
        self._job_leaf_pods: dict[str, IntArray] = {}
        self._bfs: dict[str, list[str]] = {}
        self._groups: TierGroups | None = None
        self._tier_scores = self._tier_weights(tree)
        weight_sum = sum(w for _t, w in self._tier_scores)
        self._normal_factor = self._scale / weight_sum if weight_sum > 0 else 0.0
        ssn.add_event_handler(EventHandler(self._on_allocate, self._on_deallocate))
        ssn.add_hypernode_gradient_fn(self.name, self._gradient)
        ssn.add_hypernode_order_fn(self.name, self._hypernode_order)
        ssn.add_live_node_order_fn(self.name, self._node_scores)

    def evict_max_hypernodes(self) -> int:
        """Return the most HyperNodes an eviction gradient holds (the default when not positive)."""
        value = self.arguments.get_int(EVICT_MAX_HYPERNODES)
        return value if value > 0 else DEFAULT_EVICT_MAX_HYPERNODES

    def _binpack_weights(self, ssn: Session) -> FloatArray:
        """Return the binpack weight of every resource column (0: not binpacked)."""
        args = self.arguments
        weights = np.full(len(ssn.resource_index), np.nan)
        position = ssn.resource_index.position
        weights[position[CPU]] = _weight(args.get_int(BINPACK_CPU))
        weights[position[MEMORY]] = _weight(args.get_int(BINPACK_MEMORY))
        for name in (n.strip() for n in args.get_str(BINPACK_RESOURCES).split(",")):
            if not name or name in (CPU, MEMORY) or name not in position:
                continue
            key = BINPACK_RESOURCE_PREFIX + name
            weights[position[name]] = _weight(args.get_int(key)) if args.is_set(key) else 1
        return weights  # NaN: the resource has no weight (not scored at all)

    def _tier_weights(self, tree: HyperNodeTree) -> list[tuple[int, float]]:
        """Return (tier, fading^(tier-1)) for every tier from the lowest to the top."""
        out = []
        for tier in range(tree.min_tier, tree.top_tier + 1):
            exponent = tier - 1
            if self._fading == 0 and exponent < 0:
                out.append((tier, math.inf))
            else:
                out.append((tier, self._fading**exponent))
        return out

    # --- accounting ----------------------------------------------------------------------------
    def _on_allocate(self, event: Event) -> None:
        self._account(event.task, 1)

    def _on_deallocate(self, event: Event) -> None:
        self._account(event.task, -1)

    def _account(self, task: TaskInfo, sign: int) -> None:
        node = self._ssn.nodes.get(task.node_name) if task.node_name else None
        if node is None or task.resreq_vec is None:
            return
        held = self._holding_list[node.index]
        vec = task.resreq_vec
        last = self._asked_last  # pods of one template share their request vector
        if last is not None and last[0] is vec and last[1] == sign:
            asked = last[2]
        else:
            asked = [(c, sign * amount) for c, amount in enumerate(vec.tolist()) if amount]
            self._asked_last = (vec, sign, asked)
        used_list = self._used_list
        for h in held:
            used = used_list[h]
            for c, amount in asked:
                used[c] += amount
        self._changes.extend(held)
        counts = self._job_leaf_pods.get(task.job)
        if counts is not None:
            counts[self._leaf[node.index]] += sign

    def _hypernode_order(self, job: JobInfo, names: list[str], ties: bool) -> dict[str, float]:
        """Return the binpacking score of each candidate HyperNode for all of ``job``'s pods."""
        request = np.zeros(self._allocatable.shape[1], dtype=np.int64)  # (not _used: a rebuild)
        for task in job.tasks.values():
            if task.resreq_vec is not None:
                request += task.resreq_vec
        among = np.array([self._index[n] for n in names], dtype=np.int64)
        scores = self._binpack(request, among).tolist()
        best = max(scores, default=0.0)
        tied = [i for i, s in enumerate(scores) if s == best]
        if ties and len(tied) > 1 and job.tasks:
            for i in tied:
                rows = set(self._tree.rows[names[i]].tolist())
                scores[i] += self._pods_in(job, rows) / len(job.tasks)
        return {name: score * self._scale for name, score in zip(names, scores, strict=True)}

    def _pods_in(self, job: JobInfo, rows: set[int]) -> int:
        nodes = self._ssn.nodes
        count = 0
        for task in job.tasks.values():
            node = nodes.get(task.node_name) if task.node_name else None
            if node is not None and node.index in rows:
                count += 1
        return count

    # --- node scores ---------------------------------------------------------------------------
    def _node_scores(
        self, task: TaskInfo, rows: IntArray | None, scores: FloatArray
    ) -> FloatArray | None:
        """Return ``scores`` (the candidate rows' scores so far; rows None: every row, -inf where
        no candidate) with this plugin's added."""
        job = self._ssn.jobs.get(task.job)
        # As Volcano, the pod's sub-job decides: with a network topology its pods are kept close
        # (ties broken by the sub-job's pods), else binpacked. A job without a subGroupPolicy is
        # its own one sub-job.
        sub = None
        if job is None:
            topology = None
        elif job.sub_group_policy:
            sub = sub_job_of(job, task)
            topology = sub.network_topology if sub is not None else None
        else:
            topology = job.network_topology
        if job is not None and topology is not None:
            tied_with = sub.tasks if sub is not None else None
            if rows is None:  # the LCA tie-break looks at the candidates only
                candidates = np.flatnonzero(scores > -np.inf)
                extra = self._lca_scores(task, job, candidates, tied_with)
                if extra is None:
                    return None
                total = scores.copy()
                total[candidates] += extra
                return total
            extra = self._lca_scores(task, job, rows, tied_with)
            return None if extra is None else scores + extra
        if not self._normal or task.resreq_vec is None:
            return None
        if rows is None:
            full: FloatArray = scores + self._normal_scores(task.resreq_vec, None)
            return full
        # Binpacking adds at most the scale: a row already further behind the best cannot win,
        # so only the rows near the top are scored (the choice stays exact).
        near = np.flatnonzero(scores >= scores.max() - self._scale)
        total = scores.copy()
        total[near] += self._normal_scores(task.resreq_vec, rows[near])
        return total

    def _lca_scores(
        self,
        task: TaskInfo,
        job: JobInfo,
        rows: IntArray,
        sub_tasks: Mapping[str, TaskInfo] | None = None,
    ) -> FloatArray | None:
        """Closeness of each row to the task's job (or sub-job) HyperNode, ties broken by the
        pods of the job (of ``sub_tasks``, the sub-job's, when given) already there."""
        allocated = task.job_allocated_hypernode
        if not allocated or allocated not in self._index:
            return None
        members = job.tasks if sub_tasks is None else sub_tasks
        if 0 < len(rows) <= FEW_ROWS:
            return self._lca_few(job, rows, allocated, members, sub_tasks)
        leaf = self._leaf[rows]
        scores = self._lca_table(allocated)[leaf]  # a fresh array (fancy indexing copies)
        tied = scores == scores.max()
        if members and np.count_nonzero(tied) > 1:
            counts = self._leaf_pods(job) if sub_tasks is None else self._pods_per_leaf(sub_tasks)
            bonus = counts[leaf[tied]]
            scores[tied] += bonus / len(members)
        out: FloatArray = scores * self._scale
        return out

    def _lca_few(
        self,
        job: JobInfo,
        rows: IntArray,
        allocated: str,
        members: Mapping[str, TaskInfo],
        sub_tasks: Mapping[str, TaskInfo] | None,
    ) -> FloatArray:
        """``_lca_scores`` for a few rows (a leaf's, a spine's) in plain floats: the same
        float64 operations in the same order as the array form, without numpy's per-call cost."""
        table = self._lca_lists.get(allocated)
        if table is None:
            table = self._lca_lists[allocated] = self._lca_table(allocated).tolist()
        leaf_of = self._leaf_list
        leaves = [leaf_of[r] for r in rows.tolist()]
        scores = [table[h] for h in leaves]
        best = max(scores)
        tied = [i for i, score in enumerate(scores) if score == best]
        if members and len(tied) > 1:
            counts = self._leaf_pods(job) if sub_tasks is None else self._pods_per_leaf(sub_tasks)
            size = len(members)
            for i in tied:  # as numpy: int64 / int is float64 division of the two
                scores[i] += float(counts[leaves[i]]) / float(size)
        scale = self._scale
        return np.array([score * scale for score in scores], dtype=np.float64)

    def _leaf_pods(self, job: JobInfo) -> IntArray:
        """Return the job's pods per lowest-tier HyperNode ("none" counts nothing)."""
        counts = self._job_leaf_pods.get(job.uid)
        if counts is None:
            counts = np.zeros(len(self._names) + 1, dtype=np.int64)
            nodes = self._ssn.nodes
            for other in job.tasks.values():
                node = nodes.get(other.node_name) if other.node_name else None
                if node is not None:
                    counts[self._leaf[node.index]] += 1
            self._job_leaf_pods[job.uid] = counts
        counts[len(self._names)] = 0
        return counts

    def _pods_per_leaf(self, tasks: Mapping[str, TaskInfo]) -> IntArray:
        """Return ``tasks``' placed pods per lowest-tier HyperNode ("none" counts nothing)."""
        counts = np.zeros(len(self._names) + 1, dtype=np.int64)
        nodes = self._ssn.nodes
        for other in tasks.values():
            node = nodes.get(other.node_name) if other.node_name else None
            if node is not None:
                counts[self._leaf[node.index]] += 1
        counts[len(self._names)] = 0
        return counts

    def _lca_table(self, allocated: str) -> FloatArray:
        """Return the score of a node in each HyperNode (last entry: no HyperNode) for a job
        in ``allocated``: 1 in ``allocated`` itself, else by the tier of their LCA."""
        table = self._lca_tables.get(allocated)
        if table is None:
            tree = self._tree
            low, top = tree.min_tier, tree.top_tier
            table = np.zeros(len(self._names) + 1, dtype=np.float64)
            done = np.zeros(len(self._names) + 1, dtype=np.bool_)
            for ancestor in tree.ancestors(allocated):  # nearest first: the LCA wins
                below = self._below(ancestor)
                fresh = below[~done[below]]
                level = tree.tier[ancestor]
                if low == top:
                    table[fresh] = 1.0
                elif low <= level <= top:
                    table[fresh] = (top - level) / (top - low)
                done[fresh] = True
            table[self._index[allocated]] = 1.0
            self._lca_tables[allocated] = table
        return table

    def _below(self, name: str) -> IntArray:
        """Return the indices of ``name`` and every HyperNode under it."""
        found = self._subtree.get(name)
        if found is None:
            out = [self._index[name]]
            for child in self._tree.children.get(name, ()):
                out.extend(self._below(child).tolist())
            found = np.array(out, dtype=np.int64)
            self._subtree[name] = found
        return found

    # --- the gradient --------------------------------------------------------------------------
    def _gradient(
        self,
        job: JobInfo,
        root: str,
        highest: int,
        allocated: str,
        minimum: IntArray | None,
        purpose: SearchPurpose = SearchPurpose.ALLOCATE,
    ) -> list[list[str]]:
        """Return the eligible HyperNodes under the search root, grouped by tier ascending (for
        eviction: descending and capped, see the module docstring)."""
        tree = self._tree
        start = self._search_root(root, highest, allocated)
        if start is None:
            return []
        eligible = self._tier_of <= highest
        if not allocated and minimum is not None:
            if purpose is SearchPurpose.EVICT:  # eviction may free all of it: room is the bound
                eligible &= rows_fit(self._allocatable, minimum)
            else:
                eligible &= rows_fit(self._idle, minimum) | rows_fit(self._future_idle, minimum)
        by_tier: dict[int, list[str]] = {}
        index = self._index
        for name in self._breadth_first(start):
            if eligible[index[name]]:
                by_tier.setdefault(tree.tier[name], []).append(name)
        gradient = [by_tier[t] for t in sorted(by_tier)]
        if purpose is SearchPurpose.EVICT:
            return reverse_and_cap(gradient, self._evict_max)
        return gradient

    def _breadth_first(self, start: str) -> list[str]:
        """Return ``start`` and the HyperNodes below it, breadth-first (cached per start)."""
        order = self._bfs.get(start)
        if order is None:
            order, seen = [start], {start}
            i = 0
            while i < len(order):
                for child in self._tree.children.get(order[i], ()):
                    if child not in seen:
                        seen.add(child)
                        order.append(child)
                i += 1
            self._bfs[start] = order
        return order

    def _search_root(self, root: str, highest: int, allocated: str) -> str | None:
        """Return where to search: ``root``, narrowed for a job already in a HyperNode to its
        highest ancestor within the allowed tier (None when the two do not intersect)."""
        if not allocated:
            return root
        tree = self._tree
        widest = ""
        for ancestor in tree.ancestors(allocated):
            if tree.tier.get(ancestor, 0) > highest:
                break
            widest = ancestor
        if not widest:
            return None
        common = tree.lca(root, widest)
        if common == widest:
            return root
        if common == root:
            return widest
        return None


def reverse_and_cap(gradient: list[list[str]], limit: int) -> list[list[str]]:
    """Return ``gradient``'s tiers widest first, holding at most ``limit`` HyperNodes (the last
    of a tier that does not fit whole; ``limit`` <= 0: no cap, order unchanged).

    Eviction tries wide domains first: the more nodes a domain holds, the likelier its victims
    make room for the whole job.
    """
    if limit <= 0:
        return gradient
    out: list[list[str]] = []
    remaining = limit
    for group in reversed(gradient):
        if remaining == 0:
            break
        taken = group if len(group) <= remaining else group[len(group) - remaining :]
        out.append(taken)
        remaining -= len(taken)
    return out
