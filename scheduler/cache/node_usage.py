"""Nodes' measured usage in the snapshot: what the simulated kubelet's metrics report.

Kept apart from the snapshot read, which only feeds it the rows it already has.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from kubelet.sim_usage import usage_factors
from scheduler.engine.api.node_info import NODE_METRICS_PERIOD, NodeInfo, NodeUsage
from scheduler.engine.api.resource import CPU, MEMORY

__all__ = ["MeasuredUsage"]


class MeasuredUsage:
    """Nodes' measured usage, what the simulated kubelet's metrics report (``NodeUsage``).

    Volcano's cache asks its metrics source for every node's average use; here the source is
    the simulated kubelet, whose running pods use their requests times ``volcano.sh/sim-usage``
    (``kubelet/sim_usage.py``). It costs no query and almost no time: the read already sums
    each node's Pending and Running requests (``loads``); only the few pods that do not use
    exactly their requests (Pending ones, annotated ones) are noted here as corrections. It is
    as fresh as the snapshot (measured at ``now``).
    """

    __slots__ = ("_decode", "_delta", "_loads")

    def __init__(self, decode: Callable[[str | None], Any], loads: Mapping[int, list[int]]) -> None:
        self._decode = decode
        self._loads = loads
        self._delta: dict[int, list[float]] = {}

    def correct(
        self, node_pk: int, cpu: int, memory: int, phase: str, annotations_text: str | None
    ) -> None:
        """Note a pod counted in ``loads`` whose use is not its requests (in milli-units)."""
        if phase == "Running":
            factors = usage_factors(self._decode(annotations_text))
            cpu_share, memory_share = factors["cpu"] - 1.0, factors["memory"] - 1.0
        else:
            cpu_share = memory_share = -1.0  # not started: uses nothing
        delta = self._delta.setdefault(node_pk, [0.0, 0.0])
        delta[0] += cpu * cpu_share
        delta[1] += memory * memory_share

    def fill(self, nodes: Mapping[int, NodeInfo], now: datetime) -> None:
        """Set every Ready node's usage in percent of its allocatable, measured at ``now``."""
        for pk, node in nodes.items():
            held = self._loads.get(pk)
            delta = self._delta.get(pk)
            cpu = (held[0] if held else 0) + (delta[0] if delta else 0.0)
            memory = (held[1] if held else 0) + (delta[1] if delta else 0.0)
            node.resource_usage = NodeUsage(
                metrics_time=now,
                cpu_usage_avg={NODE_METRICS_PERIOD: _percent(cpu, node.allocatable.get(CPU))},
                mem_usage_avg={NODE_METRICS_PERIOD: _percent(memory, node.allocatable.get(MEMORY))},
            )


def _percent(used: float, capacity: int) -> float:
    return used / capacity * 100.0 if capacity > 0 else 0.0
