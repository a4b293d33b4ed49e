"""numa-aware plugin: fit Guaranteed pods' whole CPUs to the node's NUMA topology.

Volcano's counterpart: ``pkg/scheduler/plugins/numaaware``. A node's ``Numatopology`` (kept on
``NodeInfo.numatopology``) gives its kubelet policies, allocatable CPUs and CPU details. Only
Guaranteed pods are checked. A pod with ``volcano.sh/numa-topology-policy`` other than ""/none
fits only nodes with CPU manager ``static``, the same TopologyManagerPolicy and CPUs left; a pod
without one is checked with the node's policy when the node is static with a policy other
than none. Each container's CPU hints go through the node's policy (``numaaware_policy``); the
CPUs chosen are taken from the node's free set when the pod is allocated. Pods with a policy
score higher on nodes where their CPUs span fewer NUMA nodes (0-100 x ``weight``).

The chosen CPUs of the pods bound this session are written to ``decisions.numa_assignments``
(pod -> node and resource -> cpuset) so the live side can record them, as Volcano hands them to
its cache (``AddUnassignedNumaPods``) for the node's Numatopology.

Node answers are memoised per (pod, node, the node's CPU-set version): the free set of a node
changes only when a pod with an assignment is allocated to or released from it. Scores are
normalised by the largest NUMA count over every node, so such a change marks every node row
changed (cached masks and scores are recomputed); without Guaranteed pods nothing is registered.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from scheduler.engine.api.node_info import NodeInfo
from scheduler.engine.api.numa import (
    CPU_MANAGER_POLICY,
    TOPOLOGY_MANAGER_POLICY,
    NumatopoInfo,
    format_cpuset,
)
from scheduler.engine.api.resource import CPU
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import FitCode, PredicateStatus, TaskStatus
from scheduler.engine.framework import ArgSpec, Plugin, Session, register_plugin
from scheduler.engine.framework.interface import Event, EventHandler
from scheduler.engine.plugins.numaaware_policy import (
    allocate_cpus,
    cpu_hints,
    policy_predicate,
)

__all__ = ["MAX_NODE_SCORE", "NumaAwarePlugin"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

MAX_NODE_SCORE = 100
_NO_POLICY = ("", "none")

# (fits, refusal reason or "", code, the CPUs chosen or None when no assignment was made)
_Answer = tuple[str, FitCode, frozenset[int] | None]


@register_plugin
class NumaAwarePlugin(Plugin):
    """NUMA topology filter and score for Guaranteed pods with whole CPUs."""

    name = "numa-aware"
    arguments_schema = (
        ArgSpec("weight", int, 1, help="multiplier of the 0-100 score (fewer NUMA nodes used "
                "scores higher)"),
    )  # fmt: skip

    def on_session_open(self, ssn: Session) -> None:
        """Copy every node's free CPU set, then register the filter, the score and the events."""
        self._ssn = ssn
        self._weight = self.arguments.get_int("weight")
        self._free: dict[str, frozenset[int]] = {}
        self._version: dict[str, int] = {}
        for node in ssn.node_list:
            topo = node.numatopology
            if topo is not None:
                self._free[node.name] = topo.cpu_allocatable
                self._version[node.name] = 0
        self._numa_nodes = [n for n in ssn.node_list if n.numatopology is not None]
        self._answers: dict[tuple[str, str, int], _Answer] = {}
        # task uid -> (node, CPUs) of tasks allocated with an assignment this session
        self._bound: dict[str, tuple[str, frozenset[int]]] = {}
        if not any(t.numa is not None for j in ssn.jobs.values() for t in j.tasks.values()):
            return  # no Guaranteed pod: nothing to check or score
        self._split_keys(ssn)
        ssn.add_predicate_fn(self.name, self._predicate)
        ssn.add_batch_node_order_fn(self.name, self._batch_score, row=self._row_score)
        ssn.add_event_handler(EventHandler(self._allocated, self._deallocated))

    def on_session_close(self, ssn: Session) -> None:
        """Hand over the CPUs of the pods bound this session."""
        for uid, (node, cpus) in self._bound.items():
            if ssn.decisions.binds.get(uid) == node:
                ssn.decisions.numa_assignments[uid] = (node, {CPU: format_cpuset(cpus)})

    @staticmethod
    def _split_keys(ssn: Session) -> None:
        """Give Guaranteed pods node-answer cache keys of their own (per-container CPUs)."""
        for job in ssn.jobs.values():
            for task in job.tasks.values():
                if task.numa is None or task.status != TaskStatus.PENDING:
                    continue
                key = task.template_key or task.compute_template_key()
                task.template_key = (*key, ("numa-aware", task.numa))

    # --- the filter ----------------------------------------------------------------------------
    def _answer(self, task: TaskInfo, node: NodeInfo) -> _Answer:
        version = self._version.get(node.name, -1)
        key = (task.uid, node.name, version)
        found = self._answers.get(key)
        if found is None:
            found = self._compute(task, node)
            self._answers[key] = found
        return found

    def _compute(self, task: TaskInfo, node: NodeInfo) -> _Answer:
        numa = task.numa
        if numa is None:
            return ("", FitCode.UNSCHEDULABLE, None)
        topo = node.numatopology
        reason = self._refusal(numa.policy, topo, node.name)
        if reason:
            return (reason, FitCode.ERROR, None)
        if topo is None or not self._checked(numa.policy, topo):
            return ("", FitCode.UNSCHEDULABLE, None)
        free = self._free[node.name]
        policy = topo.policies.get(TOPOLOGY_MANAGER_POLICY, "")
        numa_nodes = topo.numa_nodes()
        chosen: frozenset[int] = frozenset()
        for container in numa.containers:
            best, admit = policy_predicate(policy, numa_nodes, [cpu_hints(container, topo, free)])
            if not admit:
                return (
                    f"container {container.name} cannot be assigned by numa",
                    FitCode.UNSCHEDULABLE_AND_UNRESOLVABLE,
                    None,
                )
            cpus = allocate_cpus(container, best, topo, free)
            chosen = chosen | cpus
            free = free - cpus
        return ("", FitCode.UNSCHEDULABLE, chosen)

    def _refusal(self, policy: str, topo: NumatopoInfo | None, node: str) -> str:
        """Return why a node cannot take a pod asking ``policy`` ('' when it may)."""
        if policy in _NO_POLICY:
            return ""
        if topo is None:
            return "numa info is empty"
        if topo.policies.get(CPU_MANAGER_POLICY) != "static":
            return "cpu manager policy isn't static"
        node_policy = topo.policies.get(TOPOLOGY_MANAGER_POLICY, "")
        if policy != node_policy:
            return f"task topology policy[{policy}] is different with node[{node_policy}]"
        if not self._free.get(node):
            return "cpu allocatable map is empty"
        return ""

    @staticmethod
    def _checked(policy: str, topo: NumatopoInfo) -> bool:
        """Return True when the pod's CPUs are fitted on this node (else it passes unchecked)."""
        if policy not in _NO_POLICY:
            return True
        return (
            topo.policies.get(CPU_MANAGER_POLICY) == "static"
            and topo.policies.get(TOPOLOGY_MANAGER_POLICY, "") not in _NO_POLICY
        )

    def _predicate(self, task: TaskInfo, node: NodeInfo) -> PredicateStatus | None:
        if task.numa is None:
            return None
        reason, code, _ = self._answer(task, node)
        return PredicateStatus(reason, code, plugin=self.name) if reason else None

    # --- the score -------------------------------------------------------------------------------
    def _numa_count(self, task: TaskInfo, row: int) -> int:
        node = self._ssn.node_list[row]
        cpus = self._answer(task, node)[2]
        topo = node.numatopology
        if not cpus or topo is None:
            return 0
        return len({topo.cpu_detail[c].numa if c in topo.cpu_detail else 0 for c in cpus})

    def _max_count(self, task: TaskInfo) -> int:
        """Return the most NUMA nodes the pod's CPUs would span on any node that has them.

        Volcano normalises over the nodes it scores; refused nodes have no assignment (0), so
        the maximum over every node is the same and keeps the batch and one-row forms equal.
        """
        return max((self._numa_count(task, node.index) for node in self._numa_nodes), default=0)

    def _scores(self, task: TaskInfo, rows: list[int]) -> list[float]:
        if task.numa is None or task.numa.policy in _NO_POLICY:
            return [0.0] * len(rows)
        most = self._max_count(task)
        if most == 0:
            return [float(MAX_NODE_SCORE * self._weight)] * len(rows)
        return [
            float(
                (MAX_NODE_SCORE - MAX_NODE_SCORE * self._numa_count(task, row) // most)
                * self._weight
            )
            for row in rows
        ]

    def _batch_score(self, task: TaskInfo, rows: IntArray) -> FloatArray:
        return np.array(self._scores(task, rows.tolist()), dtype=np.float64)

    def _row_score(self, task: TaskInfo, row: int) -> float:
        return self._scores(task, [row])[0]

    # --- events ----------------------------------------------------------------------------------
    def _allocated(self, event: Event) -> None:
        task = event.task
        node = self._ssn.nodes.get(task.node_name)
        if task.numa is None or node is None or node.name not in self._free:
            return
        cpus = self._answer(task, node)[2]
        if cpus is None:
            return
        self._free[node.name] = self._free[node.name] - cpus
        self._version[node.name] += 1
        self._bound[task.uid] = (node.name, cpus)
        self._ssn.touch_nodes(None)  # scores are normalised over every node: all may change

    def _deallocated(self, event: Event) -> None:
        task = event.task
        held = self._bound.pop(task.uid, None)
        if held is None:
            return
        name, cpus = held
        self._free[name] = self._free[name] | cpus
        self._version[name] += 1
        self._ssn.touch_nodes(None)
