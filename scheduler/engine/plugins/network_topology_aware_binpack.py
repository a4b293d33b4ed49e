"""network-topology-aware's HyperNode binpacking: the score of a HyperNode for a request, and
the faded per-tier binpacking of a pod without a network topology on every node.

Volcano's ``getSubJobHyperNodeBinPackingScore`` and ``batchNodeOrderFnForNormalPods``. A mixin
of ``NetworkTopologyAwarePlugin`` (``network_topology_aware.py``), which builds the per-HyperNode
accounting this reads in ``on_session_open`` and keeps it up to date in its event handler; kept
apart because the incremental scoring of pods without topology (rows grouped by their
HyperNodes, running tier sums patched per placement) is one idea of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from scheduler.engine.api.hypernode import HyperNodeTree

__all__ = ["NARROW_GROUPS", "HyperNodeBinpacking", "NormalPodState", "TierGroups"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

# A HyperNode over more node groups than this is rescored for every group at once (numpy)
NARROW_GROUPS = 16


@dataclass(slots=True)
class NormalPodState:
    """Binpacking of one request per HyperNode (last entry: none, which scores 1), up to date
    with the change log up to ``read``; the request's binpacked columns as plain lists."""

    cols: IntArray
    col_list: list[int]
    weights: list[float]  # the binpack weight of each of ``col_list``
    request: list[int]  # the request in each of ``col_list``
    by_hypernode: FloatArray
    read: int = 0
    # The per-group running sums after each tier term (see ``_normal_scores``), None until
    # first asked; ``dirty``: the HyperNodes rescored since they were last brought up to date.
    sums: list[FloatArray] | None = None
    values: list[float] = field(default_factory=list)  # ``by_hypernode`` as plain floats
    dirty: set[int] = field(default_factory=set)
    # (weight, request, column) of each binpacked column, and the weights' sum
    triples: list[tuple[float, int, int]] = field(default_factory=list)
    weight_sum: float = 0.0

    def __post_init__(self) -> None:
        self.triples = list(zip(self.weights, self.request, self.col_list, strict=True))
        self.weight_sum = sum(self.weights)


@dataclass(slots=True)
class TierGroups:
    """Rows grouped by the HyperNode they sit in at every tier in use: rows of one group score
    the same, so a pod's HyperNode binpacking is summed once per group, not once per row."""

    group_of_row: IntArray  # row -> its group
    terms: list[tuple[float, IntArray]]  # per tier holding HyperNodes: (weight, group -> HyperNode)
    constant: float  # the tiers without HyperNodes (1 x their weight)
    weights: list[float]  # of each term
    columns: list[list[int]]  # of each term, as lists
    # HyperNode -> (its term, the groups below it): a change there moves only their sums
    spans: dict[int, tuple[int, list[int]]]
    # HyperNode -> its term, for those over more than NARROW_GROUPS groups
    wide: dict[int, int]
    only: list[int | None]  # per term: the one HyperNode of every group (the top), else None


class HyperNodeBinpacking:
    """HyperNode binpacking, over the plugin's per-HyperNode accounting."""

    # Built by the plugin in on_session_open (see NetworkTopologyAwarePlugin).
    _tree: HyperNodeTree
    _names: list[str]
    _index: dict[str, int]
    _column_weights: FloatArray
    _allocatable: IntArray
    _allocatable_list: list[list[int]]
    _used_array: IntArray
    _used_list: list[list[int]]
    _used_at: int
    _changes: list[int]
    _normal_cache: dict[tuple[object, ...], NormalPodState]
    _normal_last: tuple[IntArray, NormalPodState] | None  # the last request asked, its state
    _groups: TierGroups | None
    _tier_scores: list[tuple[int, float]]
    _normal_factor: float

    @property
    def _used(self) -> IntArray:
        """Return the use per HyperNode as an array (rebuilt when a placement changed it)."""
        if self._used_at != len(self._changes):
            self._used_array = np.array(self._used_list, dtype=np.int64)
            self._used_at = len(self._changes)
        return self._used_array

    # --- HyperNode binpacking ------------------------------------------------------------------
    def _binpack(self, request: IntArray, among: IntArray | None = None) -> FloatArray:
        """Return each HyperNode's (or those ``among``) binpacking score for ``request``."""
        weights = self._column_weights
        cols = np.flatnonzero((request > 0) & ~np.isnan(weights))
        if among is None:
            used = self._used
        else:  # the few asked for, from the lists: no rebuild of every HyperNode's row
            used_list = self._used_list
            used = np.array([used_list[h] for h in among.tolist()], dtype=np.int64).reshape(
                len(among), len(weights)
            )
        allocatable = self._allocatable if among is None else self._allocatable[among]
        total = weights[cols].sum()
        if not len(cols) or total <= 0:
            return np.zeros(len(used), dtype=np.float64)
        after = used[:, cols] + request[cols]
        cap = allocatable[:, cols]
        over = (after > cap).any(axis=1)
        share = np.divide(after, cap, out=np.zeros(after.shape), where=cap > 0)
        scores: FloatArray = (share * weights[cols]).sum(axis=1) / total
        scores[over] = 0.0
        return scores

    def _normal_scores(self, request: IntArray, rows: IntArray | None) -> FloatArray:
        """HyperNode binpacking of one pod on ``rows`` (None: every row), per tier, faded by
        tier (a node outside every HyperNode of a tier scores 1 there).

        Each group's sum is taken in tier order from the same faded terms, so equal rows stay
        equal and a row scores exactly what a per-row sum would give it. The running sums after
        each tier are kept per request: a placement rescores the few HyperNodes over its node,
        so the sums below a wide HyperNode (a leaf, a spine) are redone for their few groups
        only, and from the first wide one up for every group; the same float64 operations in
        the same order give the same sums bit for bit.
        """
        state = self._normal_state(request)
        by_hypernode = state.by_hypernode
        groups = self._tier_groups()
        terms = groups.terms
        if not terms:
            total = np.full(int(groups.group_of_row.max(initial=-1)) + 1, groups.constant)
        else:
            sums = state.sums
            if sums is None:
                first = 0
                sums = state.sums = [np.empty(0)] * len(terms)
            else:
                first = self._patch_sums(state, sums, groups) if state.dirty else len(terms)
            state.dirty.clear()
            for i in range(first, len(terms)):
                weight, column = terms[i]
                only = groups.only[i]
                if i == 0:
                    sums[0] = weight * by_hypernode[column] + groups.constant
                elif only is not None:  # one HyperNode over every group: add one scalar
                    sums[i] = sums[i - 1] + weight * state.values[only]
                else:
                    sums[i] = sums[i - 1] + weight * by_hypernode[column]
            total = sums[-1] * self._normal_factor
        scores: FloatArray = (
            total[groups.group_of_row] if rows is None else total[groups.group_of_row[rows]]
        )
        return scores

    def _patch_sums(self, state: NormalPodState, sums: list[FloatArray], groups: TierGroups) -> int:
        """Redo, in place, the running sums of the few groups under the narrow HyperNodes
        rescored since; return the first tier whose sums must be redone for every group."""
        spans, wide = groups.spans, groups.wide
        first = len(sums)
        for h in state.dirty:
            tier_index = wide.get(h, first)
            if tier_index < first:
                first = tier_index
        values = state.values
        weights, columns, constant = groups.weights, groups.columns, groups.constant
        for h in state.dirty:
            tier_index, below = spans[h]
            if tier_index >= first:
                continue
            for g in below:  # plain floats: the same IEEE float64 operations as numpy's
                i = tier_index
                total = (
                    weights[0] * values[columns[0][g]] + constant
                    if i == 0
                    else float(sums[i - 1][g]) + weights[i] * values[columns[i][g]]
                )
                sums[i][g] = total
                for i in range(tier_index + 1, first):
                    total = total + weights[i] * values[columns[i][g]]
                    sums[i][g] = total
        return first

    def _normal_state(self, request: IntArray) -> NormalPodState:
        """Return the request's binpacking score per HyperNode, brought up to date: only the
        HyperNodes whose use changed since (a placement changes the few over its node) are
        scored again, unless more changed than there are HyperNodes."""
        last = self._normal_last  # pods of a template share their request vector
        if last is not None and last[0] is request:
            state: NormalPodState | None = last[1]
        else:
            state = self._normal_cache.get(tuple(request.tolist()))
        log = self._changes
        if state is None or len(log) - state.read > len(self._names):
            weights = self._column_weights
            cols = np.flatnonzero((request > 0) & ~np.isnan(weights))
            col_list = cols.tolist()
            state = NormalPodState(
                cols=cols,
                col_list=col_list,
                weights=[float(weights[c]) for c in col_list],
                request=[int(request[c]) for c in col_list],
                by_hypernode=np.append(self._binpack(request), 1.0),
            )
            state.values = state.by_hypernode.tolist()
            self._normal_cache[tuple(request.tolist())] = state
        elif state.read < len(log):
            changed = sorted(set(log[state.read :]))
            by_hypernode = state.by_hypernode
            values = state.values
            for h, score in zip(changed, self._binpack_few(state, changed), strict=True):
                by_hypernode[h] = values[h] = score
            state.dirty.update(changed)
        state.read = len(log)
        self._normal_last = (request, state)
        return state

    def _tier_groups(self) -> TierGroups:
        """Return the rows grouped by their HyperNode at each tier in use (made once)."""
        found = self._groups
        if found is None:
            tree, none = self._tree, len(self._names)
            columns: dict[int, IntArray] = {}
            for level in tree.tiers:
                column = np.full(len(tree.containing), none, dtype=np.int64)
                for row, held in enumerate(tree.containing):
                    for name in held:
                        if tree.tier[name] == level:
                            column[row] = self._index[name]
                            break
                columns[level] = column
            constant, used = 0.0, []
            for level, weight in self._tier_scores:
                if level in columns:
                    used.append((weight, columns[level]))
                else:
                    constant += weight
            if used:
                stacked = np.stack([column for _w, column in used], axis=1)
                unique, group_of_row = np.unique(stacked, axis=0, return_inverse=True)
                terms = [(w, unique[:, i].copy()) for i, (w, _c) in enumerate(used)]
            else:
                group_of_row = np.zeros(len(tree.containing), dtype=np.int64)
                terms = []
            spans: dict[int, tuple[int, list[int]]] = {}
            for i, (_w, column) in enumerate(terms):
                for g, h in enumerate(column.tolist()):
                    if h != none:  # "none" never changes
                        spans.setdefault(h, (i, []))[1].append(g)
            found = TierGroups(
                group_of_row.reshape(-1).astype(np.int64),
                terms,
                constant,
                [w for w, _c in terms],
                [c.tolist() for _w, c in terms],
                spans,
                {h: i for h, (i, below) in spans.items() if len(below) > NARROW_GROUPS},
                [int(c[0]) if len(c) and (c == c[0]).all() else None for _w, c in terms],
            )
            self._groups = found
        return found

    def _binpack_few(self, state: NormalPodState, hypernodes: list[int]) -> list[float]:
        """Return the binpacking score of a few HyperNodes (plain Python: cheaper than numpy)."""
        total = state.weight_sum
        if not state.weights or total <= 0:
            return [0.0] * len(hypernodes)
        out = []
        triples = state.triples
        allocatable_list, used_list = self._allocatable_list, self._used_list
        for h in hypernodes:
            cap = allocatable_list[h]
            used = used_list[h]
            score = 0.0
            for w, r, c in triples:
                a, u = cap[c], used[c]
                if u + r > a:
                    score = -1.0
                    break
                score += w * (float(u + r) / float(a) if a > 0 else 0.0)  # as numpy divides
            out.append(0.0 if score < 0 else score / total)
        return out
