"""Usage plugin: keep new pods off nodes that really are busy, and prefer the idle ones.

Volcano's counterpart: ``pkg/scheduler/plugins/usage`` (usage.go, estimator.go, shadow_cache.go).
Requests say what pods reserve; a node's *usage* says what its containers really consume, which
may be more or less. The metrics source reports each node's cpu and memory use in percent of its
capacity, averaged over the period ``10m`` (``NodeInfo.resource_usage``, Volcano's
``node.ResourceUsage``), with the time it was measured.

Filter (``enablePredicate``): a node whose average cpu use is above ``thresholds.cpu`` (percent,
default 80) refuses every new pod with "the CPU load of the node exceeds the upper limit.", and
likewise memory above ``thresholds.mem``; both UnschedulableAndUnresolvable, so no eviction can
help. Exactly at the threshold passes.

Score (``enableNodeOrder``): for each of cpu and memory the *composite* use is the reported
percentage plus the pods the metrics cannot see yet (the shadow load, below), over the node's
capacity, capped at 1; the node scores ``((1-cpu)*cpu.weight + (1-mem)*memory.weight) /
(cpu.weight + memory.weight) * 100 * usage.weight`` (defaults 1, 1, 5).

Missing or old metrics: when a node's metrics were never collected, or are more than 5 minutes
older than the session's clock, the plugin lets every pod through and scores the node 0.

Shadow load: a pod bound or allocated to a node but not yet running is not in the metrics. Its
estimated use is added to its node (at session open for pods already bound, and on every
allocation in the session; a deallocation takes back exactly what was added):
``(request * estimator.request_ratio + (limit-request) * estimator.burst_ratio) * risk``,
clamped to [0, limit]; a BestEffort pod counts as ``estimator.be_cpu`` / ``estimator.be_mem``
times risk. ``risk`` is ``estimator.risk_factor`` once the node's composite load (cpu and memory
by weight) has reached ``estimator.risk_threshold``, else 1. Defaults as Volcano: 0.7, 0, 1.2,
0.6, ``250m``, ``200Mi``; ``be_cpu`` / ``be_mem`` take a quantity, or a plain number meaning
milli-cpu / MiB as Volcano's integers do.

Arguments out of range keep their default, as in Volcano (weights below 0, thresholds outside
0-100, ratios outside 0-1, a risk factor below 1, a negative or malformed quantity).

Where usage comes from: in the live cluster, from the simulated kubelet's metrics (a pod uses
``volcano.sh/sim-usage`` percent of its requests, see ``kubelet/sim_usage.py``), fresh at every
session; in a scenario file, from the node annotation ``volcano.sh/sim-node-usage``
(``"cpu=81,mem=60"`` in percent, optionally ``age=6m``: how long before the session's clock the
metrics were taken; a node without it has no metrics).

Differences from Volcano: running pods are never shadow load, because the
simulated metrics source sees a pod the moment it runs (Volcano also counts pods started less
than ``metrics.interval`` ago); capacity is the node's allocatable; a quoted plain number
(``be_cpu: '2'``) counts as milli-cpu like an unquoted one, where Volcano reads 2 cores; a weight
or threshold of the wrong type is refused at its field instead of silently ignored; the live
metrics are instantaneous (no 10-minute average) and always collected (Volcano collects only
when the conf's ``metrics.type`` is set).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

import numpy as np
import numpy.typing as npt

from apis.errors import QuantityError
from apis.quantity import parse_quantity
from scheduler.engine.api.node_info import NODE_METRICS_PERIOD, NodeInfo
from scheduler.engine.api.resource import CPU, MEMORY
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import FitCode, PredicateStatus, TaskStatus
from scheduler.engine.framework import ArgSpec, Session, register_plugin
from scheduler.engine.framework.interface import Event, EventHandler, Plugin

__all__ = [
    "CPU_OVERLOAD",
    "MEMORY_OVERLOAD",
    "METRICS_ACTIVE_TIME",
    "UsagePlugin",
    "composite_utilization",
    "estimate_pod_resource",
    "node_score",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

CPU_OVERLOAD = "the CPU load of the node exceeds the upper limit."
MEMORY_OVERLOAD = "the memory load of the node exceeds the upper limit."
METRICS_ACTIVE_TIME = timedelta(minutes=5)
MAX_NODE_SCORE = 100.0

USAGE_WEIGHT = "usage.weight"
CPU_WEIGHT = "cpu.weight"
MEMORY_WEIGHT = "memory.weight"
CPU_THRESHOLD = "thresholds.cpu"
MEM_THRESHOLD = "thresholds.mem"
REQUEST_RATIO = "estimator.request_ratio"
BURST_RATIO = "estimator.burst_ratio"
RISK_THRESHOLD = "estimator.risk_threshold"
RISK_FACTOR = "estimator.risk_factor"
BE_CPU = "estimator.be_cpu"
BE_MEM = "estimator.be_mem"

MILLI_PER_MIB = 1024 * 1024 * 1000  # a plain be_mem number is MiB; memory is in milli-bytes
SHADOW_STATUSES = frozenset({TaskStatus.ALLOCATED, TaskStatus.BINDING, TaskStatus.BOUND})


def composite_utilization(real_percent: float, shadow: float, capacity: float) -> float:
    """Return (real use + shadow estimate) / capacity in [0, 1] (0 on a node without capacity)."""
    if capacity <= 0:
        return 0.0
    return min(max((real_percent / 100.0 * capacity + shadow) / capacity, 0.0), 1.0)


def node_score(cpu: float, mem: float, cpu_weight: int, mem_weight: int, weight: int) -> float:
    """Return the weighted idle share of a node times 100 x ``usage.weight``."""
    total = cpu_weight + mem_weight
    if total == 0:
        return 0.0
    idle = ((1.0 - cpu) * cpu_weight + (1.0 - mem) * mem_weight) / total
    return idle * MAX_NODE_SCORE * weight


def estimate_pod_resource(
    request: float, limit: float, request_ratio: float, burst_ratio: float, risk: float
) -> float:
    """Return one dimension of a pod's estimated use, clamped to [0, its effective limit]."""
    request = max(request, 0.0)
    effective_limit = limit if limit > 0 and limit >= request else request
    estimate = (request * request_ratio + (effective_limit - request) * burst_ratio) * risk
    return min(max(estimate, 0.0), effective_limit)


def _quantity(text: str, unit: int, default: float) -> float:
    """Return ``text`` in milli-units: a plain number counts in ``unit``, else a quantity."""
    text = text.strip()
    try:
        if text.isdigit():
            return float(int(text) * unit)
        return float(parse_quantity(text))
    except (QuantityError, ValueError):
        return default


@dataclass(slots=True, frozen=True)
class _Config:
    """The plugin's arguments after Volcano's fallbacks."""

    usage_weight: int
    cpu_weight: int
    memory_weight: int
    cpu_threshold: float
    mem_threshold: float
    request_ratio: float
    burst_ratio: float
    risk_threshold: float
    risk_factor: float
    be_cpu: float  # milli-cpu
    be_mem: float  # milli-bytes


@register_plugin
class UsagePlugin(Plugin):
    """Filters nodes over a usage threshold; scores nodes by their real plus shadow load."""

    name = "usage"
    arguments_schema = (
        ArgSpec(USAGE_WEIGHT, int, 5, help="multiplier of the 0-100 usage score"),
        ArgSpec(CPU_WEIGHT, int, 1, help="weight of cpu use in the score"),
        ArgSpec(MEMORY_WEIGHT, int, 1, help="weight of memory use in the score"),
        ArgSpec(CPU_THRESHOLD, int, 80, section="thresholds",
                help="a node above this cpu use (percent) takes no new pod"),
        ArgSpec(MEM_THRESHOLD, int, 80, section="thresholds",
                help="a node above this memory use (percent) takes no new pod"),
        ArgSpec(REQUEST_RATIO, float, 0.7, section="estimator",
                help="share of a new pod's request counted as its use until metrics see it"),
        ArgSpec(BURST_RATIO, float, 0.0, section="estimator",
                help="share of a new pod's limit above its request counted as its use"),
        ArgSpec(RISK_THRESHOLD, float, 0.6, section="estimator",
                help="node load (0-1) from which new pods' estimates are multiplied"),
        ArgSpec(RISK_FACTOR, float, 1.2, section="estimator",
                help="multiplier of new pods' estimates on a loaded node"),
        ArgSpec(BE_CPU, str, "250m", section="estimator",
                help="cpu a new BestEffort pod is assumed to use, e.g. 500m (a plain number is milli-cpu)"),
        ArgSpec(BE_MEM, str, "200Mi", section="estimator",
                help="memory a new BestEffort pod is assumed to use, e.g. 300Mi (a plain number is MiB)"),
    )  # fmt: skip

    def config(self) -> _Config:
        """Return the arguments, each out-of-range value replaced by Volcano's default."""
        args = self.arguments

        def within(key: str, default: float, low: float, high: float) -> float:
            value = args.get_float(key)
            return value if low <= value <= high else default

        def weight(key: str, default: int) -> int:
            value = args.get_int(key)
            return value if value >= 0 else default

        return _Config(
            usage_weight=weight(USAGE_WEIGHT, 5),
            cpu_weight=weight(CPU_WEIGHT, 1),
            memory_weight=weight(MEMORY_WEIGHT, 1),
            cpu_threshold=within(CPU_THRESHOLD, 80, 0, 100),
            mem_threshold=within(MEM_THRESHOLD, 80, 0, 100),
            request_ratio=within(REQUEST_RATIO, 0.7, 0, 1),
            burst_ratio=within(BURST_RATIO, 0.0, 0, 1),
            risk_threshold=within(RISK_THRESHOLD, 0.6, 0, 1),
            risk_factor=within(RISK_FACTOR, 1.2, 1, float("inf")),
            be_cpu=_quantity(args.get_str(BE_CPU), 1, 250.0),
            be_mem=_quantity(args.get_str(BE_MEM), MILLI_PER_MIB, 200.0 * MILLI_PER_MIB),
        )

    def on_session_open(self, ssn: Session) -> None:
        """Read every node's usage once, count the shadow load, register filter and score."""
        self._conf = conf = self.config()
        self._nodes = ssn.nodes
        n = len(ssn.node_list)
        self._fresh: BoolArray = np.zeros(n, dtype=np.bool_)
        self._real_cpu: FloatArray = np.zeros(n, dtype=np.float64)
        self._real_mem: FloatArray = np.zeros(n, dtype=np.float64)
        self._cap_cpu: FloatArray = np.zeros(n, dtype=np.float64)
        self._cap_mem: FloatArray = np.zeros(n, dtype=np.float64)
        for row, node in enumerate(ssn.node_list):
            usage = node.resource_usage
            taken = usage.metrics_time
            self._fresh[row] = taken is not None and ssn.now - taken <= METRICS_ACTIVE_TIME
            self._real_cpu[row] = usage.cpu_usage_avg.get(NODE_METRICS_PERIOD, 0.0)
            self._real_mem[row] = usage.mem_usage_avg.get(NODE_METRICS_PERIOD, 0.0)
            self._cap_cpu[row] = node.allocatable.get(CPU)
            self._cap_mem[row] = node.allocatable.get(MEMORY)
        over = (self._real_cpu > conf.cpu_threshold) | (self._real_mem > conf.mem_threshold)
        self._fits: BoolArray = ~(self._fresh & over)
        # The shadow load: estimated use of pods the metrics do not show yet, per node row,
        # and what each pod added (so a deallocation subtracts exactly that).
        self._shadow_cpu: FloatArray = np.zeros(n, dtype=np.float64)
        self._shadow_mem: FloatArray = np.zeros(n, dtype=np.float64)
        self._added: dict[str, tuple[int, float, float]] = {}
        for node in ssn.node_list:
            for task in node.tasks.values():
                if task.status in SHADOW_STATUSES:
                    self._add_shadow(node, task)
        ssn.add_event_handler(EventHandler(self._on_allocate, self._on_deallocate))
        ssn.add_predicate_fn(self.name, self._predicate)
        ssn.add_batch_predicate_fn(self.name, self._batch_predicate, row=self._row_predicate)
        ssn.add_batch_node_order_fn(self.name, self._scores, row=self._row_score)

    # --- filter ---------------------------------------------------------------------------
    def _predicate(self, task: TaskInfo, node: NodeInfo) -> PredicateStatus | None:
        """Refuse a node whose fresh metrics are over a threshold (cpu is checked first)."""
        row = node.index
        if self._fits[row]:
            return None
        reason = CPU_OVERLOAD if self._real_cpu[row] > self._conf.cpu_threshold else MEMORY_OVERLOAD
        return PredicateStatus(reason, FitCode.UNSCHEDULABLE_AND_UNRESOLVABLE, self.name)

    def _batch_predicate(self, task: TaskInfo, rows: IntArray) -> BoolArray:
        result: BoolArray = self._fits[rows]
        return result

    def _row_predicate(self, task: TaskInfo, row: int) -> bool:
        return bool(self._fits[row])

    # --- score ----------------------------------------------------------------------------
    def _composites(self, rows: IntArray | int) -> tuple[FloatArray, FloatArray]:
        """Return composite cpu and memory use (0-1) of node ``rows``."""
        cap_cpu, cap_mem = self._cap_cpu[rows], self._cap_mem[rows]
        with np.errstate(divide="ignore", invalid="ignore"):
            cpu = (self._real_cpu[rows] / 100.0 * cap_cpu + self._shadow_cpu[rows]) / cap_cpu
            mem = (self._real_mem[rows] / 100.0 * cap_mem + self._shadow_mem[rows]) / cap_mem
        cpu = np.where(cap_cpu > 0, np.clip(cpu, 0.0, 1.0), 0.0)
        mem = np.where(cap_mem > 0, np.clip(mem, 0.0, 1.0), 0.0)
        return cpu, mem

    def _scores(self, task: TaskInfo, rows: IntArray) -> FloatArray:
        """Return each row's usage score; 0 where the node's metrics are missing or old."""
        conf = self._conf
        total = conf.cpu_weight + conf.memory_weight
        if total == 0:
            return np.zeros(len(rows), dtype=np.float64)
        cpu, mem = self._composites(rows)
        idle = ((1.0 - cpu) * conf.cpu_weight + (1.0 - mem) * conf.memory_weight) / total
        scores: FloatArray = np.where(
            self._fresh[rows], idle * MAX_NODE_SCORE * conf.usage_weight, 0.0
        )
        return scores

    def _row_score(self, task: TaskInfo, row: int) -> float:
        if not self._fresh[row]:
            return 0.0
        conf = self._conf
        cpu = composite_utilization(
            float(self._real_cpu[row]), float(self._shadow_cpu[row]), float(self._cap_cpu[row])
        )
        mem = composite_utilization(
            float(self._real_mem[row]), float(self._shadow_mem[row]), float(self._cap_mem[row])
        )
        return node_score(cpu, mem, conf.cpu_weight, conf.memory_weight, conf.usage_weight)

    # --- shadow load ----------------------------------------------------------------------
    def _risk(self, row: int) -> float:
        """Return the estimator's multiplier for a node: risk_factor once it is loaded."""
        conf = self._conf
        total = conf.cpu_weight + conf.memory_weight
        cpu = composite_utilization(
            float(self._real_cpu[row]), float(self._shadow_cpu[row]), float(self._cap_cpu[row])
        )
        mem = composite_utilization(
            float(self._real_mem[row]), float(self._shadow_mem[row]), float(self._cap_mem[row])
        )
        load = (cpu * conf.cpu_weight + mem * conf.memory_weight) / total if total else 0.0
        return conf.risk_factor if load >= conf.risk_threshold else 1.0

    def _add_shadow(self, node: NodeInfo, task: TaskInfo) -> None:
        """Add ``task``'s estimated use to ``node`` (replacing what it added before)."""
        self._take_back(task.uid)
        conf, row = self._conf, node.index
        risk = self._risk(row)
        if task.best_effort:
            cpu, mem = conf.be_cpu * risk, conf.be_mem * risk
        else:
            limits = task.limits  # unknown limits count as none: the request bounds the estimate
            cpu = estimate_pod_resource(
                task.resreq.get(CPU),
                limits.get(CPU) if limits is not None else 0,
                conf.request_ratio,
                conf.burst_ratio,
                risk,
            )
            mem = estimate_pod_resource(
                task.resreq.get(MEMORY),
                limits.get(MEMORY) if limits is not None else 0,
                conf.request_ratio,
                conf.burst_ratio,
                risk,
            )
        self._shadow_cpu[row] += cpu
        self._shadow_mem[row] += mem
        self._added[task.uid] = (row, cpu, mem)

    def _take_back(self, uid: str) -> None:
        added = self._added.pop(uid, None)
        if added is None:
            return
        row, cpu, mem = added
        self._shadow_cpu[row] = max(self._shadow_cpu[row] - cpu, 0.0)
        self._shadow_mem[row] = max(self._shadow_mem[row] - mem, 0.0)

    def _on_allocate(self, event: Event) -> None:
        node = self._nodes.get(event.task.node_name)
        if node is not None:
            self._add_shadow(node, event.task)

    def _on_deallocate(self, event: Event) -> None:
        self._take_back(event.task.uid)
