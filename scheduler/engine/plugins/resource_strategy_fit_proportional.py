"""The proportional predicate: keep cpu and memory free next to each unit of a scarce resource.

Volcano's counterpart: ``pkg/scheduler/plugins/resource-strategy-fit/proportional.go``. A pod
that asks for none of the listed resources fits a node only if, after it, the node's idle cpu and
memory stay at least the node's idle units of each listed resource times their proportions
(``<name>.cpu`` in CPUs, ``<name>.memory`` in G = 10^9 bytes, per unit). Pods asking for a
listed resource, and nodes without it, are not checked. cpu and memory are not scalar resources
in Volcano, so listing them checks nothing.

The arithmetic is Volcano's, in its units: idle cpu in millicores, idle memory in bytes, idle
scalars in milli-units (our memory is in milli-bytes, hence the division by 1000).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from scheduler.engine.api.node_info import NodeArrays, NodeInfo
from scheduler.engine.api.resource import CPU, MEMORY

__all__ = ["ProportionalCheck"]

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]


class ProportionalCheck:
    """Which node rows keep enough cpu and memory beside their scarce resources, for a request."""

    __slots__ = ("_arrays", "_listed")

    def __init__(
        self,
        arrays: NodeArrays,
        nodes: list[NodeInfo],
        proportions: Mapping[str, tuple[float, float]],
    ) -> None:
        self._arrays = arrays
        # (name, column, rows that have the resource, cpu rate, memory rate); names no object of
        # the snapshot mentions have no column: no node has them and no pod asks for them.
        self._listed: list[tuple[str, int, BoolArray, float, float]] = []
        for name, (cpu, memory) in proportions.items():
            col = arrays.index.position.get(name)
            if col is None or name in (CPU, MEMORY):
                continue
            has = np.array([name in set(n.allocatable.names()) for n in nodes], dtype=np.bool_)
            self._listed.append((name, col, has, cpu, memory))

    def exempt(self, req: IntArray) -> bool:
        """Return True when the request asks for a listed resource (it is not checked)."""
        return any(req[col] > 0 for _n, col, _h, _c, _m in self._listed)

    def failing(self, req: IntArray, rows: IntArray) -> list[tuple[str, BoolArray]]:
        """Return, per listed resource, the rows of ``rows`` where the check fails."""
        idle = self._arrays.idle[rows]
        cpu_after = (idle[:, 0] - req[0]).astype(np.float64)
        memory_after = (idle[:, 1] - req[1]) / 1000.0
        out: list[tuple[str, BoolArray]] = []
        for name, col, has, cpu_rate, memory_rate in self._listed:
            units = idle[:, col].astype(np.float64)
            short = (cpu_after < units * cpu_rate) | (memory_after < units * memory_rate * 1e6)
            out.append((name, has[rows] & short))
        return out

    def mask(self, req: IntArray, rows: IntArray) -> BoolArray:
        """Return True where the node at that row passes."""
        passes = np.ones(len(rows), dtype=np.bool_)
        if not self._listed or self.exempt(req):
            return passes
        for _name, failed in self.failing(req, rows):
            passes &= ~failed
        return passes

    def reason(self, req: IntArray, row: int) -> str | None:
        """Return why node ``row`` fails (the first listed resource short), or None."""
        if not self._listed or self.exempt(req):
            return None
        for name, failed in self.failing(req, np.array([row], dtype=np.int64)):
            if failed[0]:
                return f"proportional of resource {name} check failed"
        return None

    def passes_row(self, req: IntArray, row: int) -> bool:
        """Return ``mask`` for one row, on Python scalars (asked once per placed pod)."""
        if not self._listed or self.exempt(req):
            return True
        idle = self._arrays.idle[row]
        cpu_after = float(idle[0] - req[0])
        memory_after = (int(idle[1]) - int(req[1])) / 1000.0
        for _name, col, has, cpu_rate, memory_rate in self._listed:
            if not has[row]:
                continue
            units = float(idle[col])
            if cpu_after < units * cpu_rate or memory_after < units * memory_rate * 1e6:
                return False
        return True
