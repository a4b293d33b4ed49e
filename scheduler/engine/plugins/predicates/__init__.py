"""Predicates plugin: the node filters besides resource fit, vectorised over node rows.

Volcano's counterpart: ``pkg/scheduler/plugins/predicates`` (which wraps kube-scheduler's filter
plugins). Checks, in Volcano's order, each failure worded as kube-scheduler words it:

1. pod count: a node already holding ``allocatable.pods`` pods ("node(s) pod number exceeded",
   Unschedulable);
2. NodeUnschedulable ("node(s) were unschedulable", unresolvable), unless the pod tolerates the
   ``node.kubernetes.io/unschedulable`` taint;
3. NodeAffinity: nodeSelector and required node affinity ("node(s) didn't match Pod's node
   affinity/selector", unresolvable);
4. TaintToleration: NoSchedule and NoExecute taints must be tolerated ("node(s) had untolerated
   taint {key: value}", unresolvable as in kube-scheduler; PreferNoSchedule is nodeorder's);
5. NodePorts, InterPodAffinity and PodTopologySpread (``inter_pod.py``).

Resource fit is not here: node selection (``util/node_select.py``) tests it on the node arrays.
The checks that read only the node and the pod's template (2-4) are computed once per template
over every node and cached; the pod count is read from the node arrays; the inter-pod checks read
the ``PodIndex``, which is built only when some pod in the snapshot has (anti-)affinity, spread
constraints or host ports, so an ordinary session pays nothing for them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from scheduler.engine.api.node_info import NodeInfo, Taint
from scheduler.engine.api.resource import PODS
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import FitCode, PredicateStatus
from scheduler.engine.framework import ArgSpec, EventHandler, Plugin, Session, register_plugin
from scheduler.engine.plugins.predicates import inter_pod
from scheduler.engine.plugins.predicates.pod_index import PodIndex
from scheduler.engine.plugins.predicates.selectors import (
    NodeConstraintKeys,
    first_untolerated,
    node_matches_selector,
    taint_groups,
    tolerates,
)

__all__ = ["PredicatesPlugin"]

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]

NAME = "predicates"
HARD_EFFECTS = frozenset({"NoSchedule", "NoExecute"})
UNSCHEDULABLE_TAINT = Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")

POD_NUMBER = PredicateStatus("node(s) pod number exceeded", FitCode.UNSCHEDULABLE, NAME)
UNSCHEDULABLE = PredicateStatus(
    "node(s) were unschedulable", FitCode.UNSCHEDULABLE_AND_UNRESOLVABLE, NAME
)
NODE_AFFINITY = PredicateStatus(
    "node(s) didn't match Pod's node affinity/selector",
    FitCode.UNSCHEDULABLE_AND_UNRESOLVABLE,
    NAME,
)
NODE_PORTS = PredicateStatus(
    "node(s) didn't have free ports for the requested pod ports", FitCode.UNSCHEDULABLE, NAME
)

_ENABLES = (
    "NodeAffinityEnable",
    "NodePortsEnable",
    "TaintTolerationEnable",
    "PodAffinityEnable",
    "NodeVolumeLimitsEnable",
    "VolumeZoneEnable",
    "PodTopologySpreadEnable",
    "VolumeBindingEnable",
    "DynamicResourceAllocationEnable",
)


def taint_status(taint: Taint) -> PredicateStatus:
    """Return kube-scheduler's refusal for an untolerated taint."""
    return PredicateStatus(
        f"node(s) had untolerated taint {{{taint.key}: {taint.value}}}",
        FitCode.UNSCHEDULABLE_AND_UNRESOLVABLE,
        NAME,
    )


@register_plugin
class PredicatesPlugin(Plugin):
    """Refuses nodes a pod may not run on, for a reason kube-scheduler would give."""

    name = NAME
    arguments_schema = (
        *(ArgSpec(f"predicate.{flag}", bool, True) for flag in _ENABLES),
        ArgSpec("predicate.CacheEnable", bool, False),
    )

    def on_session_open(self, ssn: Session) -> None:
        """Build the node facts, the pod index when needed, and register both predicate forms."""
        on = {flag: self.arguments.get_bool(f"predicate.{flag}") for flag in _ENABLES}
        self._affinity_on = on["NodeAffinityEnable"]
        self._taints_on = on["TaintTolerationEnable"]
        self._ports_on = on["NodePortsEnable"]
        self._pod_affinity_on = on["PodAffinityEnable"]
        self._spread_on = on["PodTopologySpreadEnable"]
        self.ssn = ssn
        self.nodes = ssn.node_list
        arrays = ssn.arrays
        self._pods_col = ssn.resource_index.position[PODS]
        self._max_pods = arrays.allocatable[:, self._pods_col] // 1000
        self._unschedulable = np.array([n.unschedulable for n in self.nodes], dtype=np.bool_)
        self._static: dict[str, BoolArray] = {}
        # template key (``TaskInfo.template_key``) -> its static mask as a list, for the one-row
        # form: one-pod jobs each have their own template object but share a key
        self._static_by_key: dict[tuple[object, ...], list[bool]] = {}
        self._eligible: dict[str, BoolArray] = {}
        self._keys = NodeConstraintKeys()
        self._taint_groups = taint_groups(self.nodes)
        self._room_mask = np.zeros(len(self.nodes), dtype=np.bool_)
        self._room_epoch, self._room_read = -1, 0
        self._constraints: dict[str, inter_pod.PodConstraints] = {}
        self.index: PodIndex | None = None
        if self._needs_index(ssn):
            index = PodIndex(ssn)
            self.index = index
            ssn.add_event_handler(
                EventHandler(
                    allocate_func=lambda e: index.on_event(e, added=True),
                    deallocate_func=lambda e: index.on_event(e, added=False),
                )
            )
        ssn.add_predicate_fn(self.name, self.predicate)
        ssn.add_batch_predicate_fn(self.name, self.batch_predicate, row=self.row_predicate)
        # Volcano registers these always; the session asks them only when this plugin has
        # enablePreemptable or enabledAllocatable (registrars), so with both off a simulated
        # eviction never clears an inter-pod affinity conflict.
        ssn.add_simulate_add_task_fn(self.name, self._simulate_add)
        ssn.add_simulate_remove_task_fn(self.name, self._simulate_remove)
        ssn.add_simulate_predicate_fn(
            self.name, lambda _state, task, node: self.predicate(task, node)
        )

    def _simulate_add(
        self, _state: dict[str, Any], _task: TaskInfo, added: TaskInfo, node: NodeInfo
    ) -> None:
        """Count ``added`` back on ``node`` in the inter-pod state (Volcano's AddPod)."""
        if self.index is not None and self._pod_affinity_on:
            self.index.apply(added, node.index, added=True, ports=False, affinity=True)

    def _simulate_remove(
        self, _state: dict[str, Any], _task: TaskInfo, removed: TaskInfo, node: NodeInfo
    ) -> None:
        """Take ``removed`` off ``node`` in the inter-pod state (Volcano's RemovePod)."""
        if self.index is not None and self._pod_affinity_on:
            self.index.apply(removed, node.index, added=False, ports=False, affinity=True)

    @staticmethod
    def _needs_index(ssn: Session) -> bool:
        """Return True when some pod has inter-pod constraints or host ports."""
        for template in ssn.templates():
            if template.host_ports or template.topology_spread_constraints:
                return True
            if "podAffinity" in template.affinity or "podAntiAffinity" in template.affinity:
                return True
        return False

    # --- per-template node facts -----------------------------------------------------------------
    def _pod_count(self, rows: IntArray) -> IntArray:
        """Return how many pods each row holds (Releasing ones left out, pipelined ones in)."""
        arrays, col = self.ssn.arrays, self._pods_col
        held = arrays.used[rows, col] - arrays.releasing[rows, col] + arrays.pipelined[rows, col]
        result: IntArray = held // 1000
        return result

    def _room(self) -> BoolArray:
        """Return, for every row, True while the node holds fewer pods than it allows.

        Kept current from ``NodeArrays.changes`` like node selection's own cache, so a new
        template costs a gather, not a recount.
        """
        arrays = self.ssn.arrays
        log = arrays.changes
        if self._room_epoch != arrays.epoch or len(log) - self._room_read > len(self.nodes) // 4:
            every = np.arange(len(self.nodes), dtype=np.int64)
            self._room_mask = self._pod_count(every) < self._max_pods
            self._room_epoch, self._room_read = arrays.epoch, len(log)
        elif self._room_read < len(log):
            rows = np.array(log[self._room_read :], dtype=np.int64)
            self._room_read = len(log)
            self._room_mask[rows] = self._pod_count(rows) < self._max_pods[rows]
        return self._room_mask

    def eligible(self, task: TaskInfo) -> BoolArray:
        """Return the node rows the pod's nodeSelector and required node affinity admit."""
        key = self._keys.key(task.template)
        found = self._eligible.get(key)
        if found is None:
            template = task.template
            if not template.node_selector and "nodeAffinity" not in template.affinity:
                found = np.ones(len(self.nodes), dtype=np.bool_)
            else:
                found = np.fromiter(
                    (node_matches_selector(task, n) for n in self.nodes), np.bool_, len(self.nodes)
                )
            self._eligible[key] = found
        return found

    def _static_mask(self, task: TaskInfo) -> BoolArray:
        """Return NodeUnschedulable AND NodeAffinity AND TaintToleration over every node row."""
        key = self._keys.key(task.template)
        found = self._static.get(key)
        if found is None:
            tolerations = task.template.tolerations
            found = ~self._unschedulable
            if any(tolerates(t, UNSCHEDULABLE_TAINT) for t in tolerations):
                found = np.ones(len(self.nodes), dtype=np.bool_)
            if self._affinity_on:
                found = found & self.eligible(task)
            if self._taints_on and self._taint_groups:
                ok = np.ones(len(self.nodes), dtype=np.bool_)
                for taints, rows in self._taint_groups:
                    if first_untolerated(taints, tolerations, HARD_EFFECTS) is not None:
                        ok[rows] = False
                found = found & ok
            self._static[key] = found
        return found

    def _constraints_of(self, task: TaskInfo) -> inter_pod.PodConstraints:
        key = task.template.key
        found = self._constraints.get(key)
        if found is None:
            found = inter_pod.PodConstraints.of(task)
            self._constraints[key] = found
        return found

    # --- the two forms ---------------------------------------------------------------------------
    def row_predicate(self, task: TaskInfo, row: int) -> bool:
        """Return ``batch_predicate`` for the one row ``row`` (the node a pod just took)."""
        if self.index is not None:
            return bool(self.batch_predicate(task, np.array([row], dtype=np.int64))[0])
        arrays, col = self.ssn.arrays, self._pods_col
        held = (
            int(arrays.used[row, col])
            - int(arrays.releasing[row, col])
            + int(arrays.pipelined[row, col])
        ) // 1000
        if held >= int(self._max_pods[row]):
            return False
        # the template's static mask, found by the task's template key (once per placed pod;
        # the node selector caches its answers under the same key)
        key = task.template_key or task.compute_template_key()
        found = self._static_by_key.get(key)
        if found is None:
            found = self._static_by_key[key] = self._static_mask(task).tolist()
        return found[row]

    def batch_predicate(self, task: TaskInfo, rows: IntArray) -> BoolArray:
        """Return True for each node row that passes every enabled check."""
        if len(rows) == 1 and self.index is None:  # one row: the node where a pod just landed
            return np.array([self.row_predicate(task, int(rows[0]))], dtype=np.bool_)
        mask: BoolArray = self._room()[rows] & self._static_mask(task)[rows]
        if self.index is not None:
            for check in self._dynamic_checks(task, rows):
                mask &= check[1]
        return mask

    def _dynamic_checks(
        self, task: TaskInfo, rows: IntArray
    ) -> list[tuple[PredicateStatus, BoolArray]]:
        """Return (refusal, pass mask) of each inter-pod check that applies, in kube's order."""
        index = self.index
        assert index is not None
        out: list[tuple[PredicateStatus, BoolArray]] = []
        if self._ports_on and task.template.host_ports:
            wanted = task.template.host_ports
            free = [not index.ports_in_use(r, wanted) for r in rows.tolist()]
            out.append((NODE_PORTS, np.array(free, dtype=np.bool_)))
        constraints = self._constraints_of(task)
        if self._pod_affinity_on:
            out.append(
                (
                    inter_pod.EXISTING_ANTI_AFFINITY,
                    inter_pod.existing_anti_affinity_ok(index, task, rows),
                )
            )
            if constraints.anti_affinity:
                ok = inter_pod.anti_affinity_ok(index, constraints.anti_affinity, rows)
                out.append((inter_pod.ANTI_AFFINITY, ok))
            if constraints.affinity:
                ok = inter_pod.affinity_ok(index, task, constraints.affinity, rows)
                out.append((inter_pod.AFFINITY, ok))
        if self._spread_on and constraints.spread:
            labelled, within = inter_pod.spread_checks(
                index, task, constraints.spread, self.eligible(task), rows
            )
            out.append((inter_pod.SPREAD_MISSING_LABEL, labelled))
            out.append((inter_pod.SPREAD, within))
        return out

    def predicate(self, task: TaskInfo, node: NodeInfo) -> PredicateStatus | None:
        """Return why ``node`` refuses ``task`` (the first failing check), or None."""
        row = node.index
        rows = np.array([row], dtype=np.int64)
        if self._pod_count(rows)[0] >= self._max_pods[row]:
            return POD_NUMBER
        tolerations = task.template.tolerations
        if node.unschedulable and not any(tolerates(t, UNSCHEDULABLE_TAINT) for t in tolerations):
            return UNSCHEDULABLE
        if self._affinity_on and not node_matches_selector(task, node):
            return NODE_AFFINITY
        if self._taints_on:
            taint = first_untolerated(node.taints, tolerations, HARD_EFFECTS)
            if taint is not None:
                return taint_status(taint)
        if self.index is not None:
            for status, ok in self._dynamic_checks(task, rows):
                if not ok[0]:
                    return status
        return None
