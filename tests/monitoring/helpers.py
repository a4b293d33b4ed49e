"""Samples made by hand, in the layout the history stores (``monitoring/__init__.py``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from monitoring.models import HistorySample, encode


def sample(
    *,
    queues: dict[str, float],
    weight: int = 1,
    binds: int = 0,
    preempt: int = 0,
    e2e: float = 10.0,
    pods: tuple[int, int] = (3, 2),
    top: list[list[Any]] | None = None,
) -> dict[str, Any]:
    """Return figures where each queue holds ``share`` and that many CPU cores allocated."""
    names = sorted(queues)
    return {
        "v": 1,
        "resources": ["cpu", "memory"],
        "queues": {
            "name": names,
            "weight": [weight] * len(names),
            "pending": [1] * len(names),
            "inqueue": [0] * len(names),
            "running": [2] * len(names),
            "pods_pending": [pods[0]] * len(names),
            "pods_running": [pods[1]] * len(names),
            "share": [queues[n] for n in names],
            "allocated": [[int(queues[n] * 1000), 0] for n in names],
            "deserved": [[4000, 0] for _ in names],
            "guarantee": [[0, 0] for _ in names],
            "capability": [[8000, 0] for _ in names],
        },
        "drf": {"top": top if top is not None else [["default/j", names[0], 0.5, "cpu"]],
                "queues": {names[0]: [1, 0.5, 0.5]}},
        "latency": {"e2e": e2e, "e2e_max": e2e, "actions": {"allocate": e2e / 2}, "plugins": {}},
        "counts": {
            "binds": binds, "evictions": preempt, "evictions_by_action": {"preempt": preempt},
            "evictions_by_queue": {names[0]: preempt} if preempt else {},
            "pipelined": 0, "unschedulable_jobs": 0, "unschedulable_tasks": 0,
        },
    }  # fmt: skip


def store(at: datetime, data: dict[str, Any], *, resolution: int = 0) -> HistorySample:
    """Store one sample."""
    return HistorySample.objects.create(at=at, resolution=resolution, data=encode(data))


# Volcano's default conf without binpack: the sharing and DRF plugins the history reads.
CONF = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
"""
