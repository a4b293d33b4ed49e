"""The lowNodeUtilization strategy: move pods off the busiest nodes while the idle ones have room.

Volcano's counterpart: ``pkg/scheduler/plugins/rescheduling/low_node_utilization.go`` and
``node_utilization_util.go``. A node's utilization is what the metrics source measured, cpu and
memory in percent of the node, averaged over ``metricsPeriod`` (``NodeInfo.resource_usage``; a
period the source did not fill reads 0, and Volcano's cache fills only ``10m``, so with the
default ``5m`` every node reads 0 and nothing is evicted). Requests do not enter the grouping;
they only count once a pod is chosen, as the room it takes and frees.

- Low nodes: schedulable, and every measured resource under its ``thresholds`` percent.
- High nodes: not low, and some resource over its ``targetThresholds`` percent.
- Nothing is evicted when no node is low, when every node is low, or when none is high.
- The low nodes' room is, per resource, the sum of (target percent - utilization) of each one's
  allocatable, in cpu millicores and memory bytes, truncated as Go truncates.
- High nodes are emptied busiest first (cpu + memory percent); on each, pods go from the lowest
  priority up, BestEffort before Burstable before Guaranteed at equal priority. Before each pod
  the node must still be at or over a target and no room total be exactly 0 (a total that went
  below 0 does not stop it, as in Volcano). A pod is a victim if a running task shuffle offered
  has its name (Volcano matches by name alone); its requests leave the room and its percent of
  the node leaves the node's utilization.

Where this differs from Volcano, by necessity: Volcano walks nodes and pods in Go map order and
sorts them with an unstable sort, so ties fall at random; here ties keep node-name order and
the node's pod order. A node's share is taken of its allocatable (Volcano divides a victim's
requests by the node's capacity; the engine keeps allocatable only). A pod's QoS class is
judged from its summed requests and limits (Kubernetes judges container by container).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from scheduler.engine.api.node_info import NodeInfo
from scheduler.engine.api.resource import CPU, MEMORY, Resource
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.plugins.rescheduling_conf import LowNodeUtilizationConf

__all__ = ["NodeUtilization", "low_node_utilization_victims", "node_utilization", "qos_rank"]

# The resources Volcano measures and moves, in its order.
RESOURCES = (CPU, MEMORY)
BEST_EFFORT, BURSTABLE, GUARANTEED = 0, 1, 2


@dataclass(slots=True)
class NodeUtilization:
    """A node, its utilization per resource (percent) and the pods on it."""

    node: NodeInfo
    utilization: dict[str, float]
    pods: list[TaskInfo]


def node_utilization(node: NodeInfo, period: str) -> NodeUtilization:
    """Return ``node``'s measured cpu and memory percent over ``period`` (0 when not measured)."""
    usage = node.resource_usage
    return NodeUtilization(
        node,
        {CPU: usage.cpu_usage_avg.get(period, 0.0), MEMORY: usage.mem_usage_avg.get(period, 0.0)},
        list(node.tasks.values()),
    )


def _is_low(usage: NodeUtilization, conf: LowNodeUtilizationConf) -> bool:
    if usage.node.unschedulable:
        return False
    for name, percent in usage.utilization.items():
        threshold = conf.thresholds.get(name)
        if threshold is not None and percent >= threshold:
            return False
    return True


def _is_high(usage: NodeUtilization, conf: LowNodeUtilizationConf) -> bool:
    for name, percent in usage.utilization.items():
        target = conf.target_thresholds.get(name)
        if target is not None and percent > target:
            return True
    return False


def _amount(name: str, milli: int) -> int:
    """Return a resource in Volcano's units here: cpu in millicores, memory in bytes."""
    return milli if name == CPU else milli // 1000


def _go_int(value: float) -> int:
    """Return ``int64(value)`` as Go converts a float: toward zero (NaN and infinities: 0 here)."""
    return int(value) if math.isfinite(value) else 0


def _go_div(numerator: float, denominator: float) -> float:
    """Return ``numerator / denominator`` as Go's floats divide (x/0 is ±Inf, 0/0 is NaN)."""
    if denominator:
        return numerator / denominator
    if numerator == 0 or math.isnan(numerator):
        return math.nan
    return math.copysign(math.inf, numerator)


def qos_rank(task: TaskInfo) -> int:
    """Return the pod's QoS class as a rank: BestEffort 0, Burstable 1, Guaranteed 2.

    From the pod's requests and limits of cpu and memory: nothing requested or limited is
    BestEffort; both limited, with requests equal to the limits (or left out, which Kubernetes
    fills in with the limits) is Guaranteed; anything else Burstable.
    """
    limits = task.limits or Resource()
    requests = task.resreq
    if not any(requests.get(n) or limits.get(n) for n in RESOURCES):
        return BEST_EFFORT
    for name in RESOURCES:
        limit = limits.get(name)
        if not limit or requests.get(name) not in (0, limit):
            return BURSTABLE
    return GUARANTEED


def _pod_order(pods: list[TaskInfo]) -> list[TaskInfo]:
    return sorted(pods, key=lambda t: (t.priority, qos_rank(t)))


def _keep_evicting(
    usage: NodeUtilization, room: dict[str, int], conf: LowNodeUtilizationConf
) -> bool:
    """Return True while the node is at or over a target and no room total is exactly 0."""
    overused = any(
        percent >= conf.target_thresholds[name]
        for name, percent in usage.utilization.items()
        if name in conf.target_thresholds
    )
    return overused and all(amount != 0 for amount in room.values())


def _evict_from(
    usage: NodeUtilization,
    room: dict[str, int],
    tasks: Sequence[TaskInfo],
    conf: LowNodeUtilizationConf,
) -> list[TaskInfo]:
    victims: list[TaskInfo] = []
    allocatable = usage.node.allocatable
    for pod in _pod_order(usage.pods):
        if not _keep_evicting(usage, room, conf):
            break
        task = next((t for t in tasks if t.name == pod.name), None)
        if task is None:
            continue
        for name in RESOURCES:
            used = _amount(name, task.resreq.get(name))
            room[name] -= used
            usage.utilization[name] -= _go_div(
                used * 100.0, float(_amount(name, allocatable.get(name)))
            )
        victims.append(task)
    return victims


def low_node_utilization_victims(
    nodes: Sequence[NodeInfo],
    period: str,
    tasks: Sequence[TaskInfo],
    conf: LowNodeUtilizationConf,
) -> list[TaskInfo]:
    """Return the running tasks (of ``tasks``) to evict from the high nodes, in eviction order."""
    low: list[NodeUtilization] = []
    high: list[NodeUtilization] = []
    for node in nodes:
        usage = node_utilization(node, period)
        if _is_low(usage, conf):
            low.append(usage)
        elif _is_high(usage, conf):
            high.append(usage)
    if not low or len(low) == len(nodes) or not high:
        return []
    room = dict.fromkeys(RESOURCES, 0)
    for usage in low:
        for name in RESOURCES:
            capacity = float(_amount(name, usage.node.allocatable.get(name)))
            room[name] += _go_int(conf.target_thresholds.get(name, 0.0) * capacity * 0.01)
            room[name] -= _go_int(usage.utilization[name] * capacity * 0.01)
    high.sort(key=lambda u: u.utilization[CPU] + u.utilization[MEMORY], reverse=True)
    victims: list[TaskInfo] = []
    for usage in high:
        if usage.pods:
            victims += _evict_from(usage, room, tasks, conf)
    return victims
