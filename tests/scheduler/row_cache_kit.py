"""Compare two snapshots field by field: an incremental read against a full one."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
from typing import Any

import numpy as np

from scheduler.cache import Snapshot

__all__ = ["plain", "snapshot_differences"]

# Fields that are the same object seen from elsewhere (a node's arrays are the cluster's), or a
# cache keyed by object ids (the arrays' request deltas, made on first use).
_SKIP = {"arrays", "_deltas"}


def plain(value: Any, depth: int = 0) -> Any:
    """Return ``value`` as plain data (dicts sorted by key, dataclasses as dicts of fields)."""
    if depth > 12:
        return repr(value)
    if isinstance(value, enum.Enum):
        return value.value
    if value is None or isinstance(value, str | int | float | bool | dt.datetime):
        return value
    if isinstance(value, np.ndarray):
        return value.tolist()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: plain(getattr(value, f.name), depth + 1)
            for f in dataclasses.fields(value)
            if f.name not in _SKIP
        }
    if isinstance(value, dict):
        return {
            str(k): plain(v, depth + 1) for k, v in sorted(value.items(), key=lambda i: str(i[0]))
        }
    if isinstance(value, list | tuple):
        return [plain(v, depth + 1) for v in value]
    if isinstance(value, set | frozenset):
        return sorted(repr(plain(v, depth + 1)) for v in value)
    if hasattr(value, "__slots__"):
        return {
            name: plain(getattr(value, name), depth + 1)
            for name in value.__slots__
            if hasattr(value, name) and name not in _SKIP
        }
    return repr(value)


def _diff(a: Any, b: Any, path: str, out: list[str]) -> None:
    if len(out) > 20:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                out.append(f"{path}.{key}: only in {'full' if key in b else 'incremental'}")
            else:
                _diff(a[key], b[key], f"{path}.{key}", out)
        return
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _diff(x, y, f"{path}[{i}]", out)
        return
    if a != b:
        out.append(f"{path}: {a!r} != {b!r}")


def snapshot_differences(incremental: Snapshot, full: Snapshot) -> list[str]:
    """Return where ``incremental`` differs from ``full`` (empty: equal), the clock aside."""
    out: list[str] = []
    for name in ("pods", "nodes", "pod_groups", "pod_group_conditions", "loads"):
        _diff(plain(getattr(incremental, name)), plain(getattr(full, name)), name, out)
    a, b = incremental.cluster, full.cluster
    for name in ("nodes", "jobs", "queues", "priority_classes", "default_priority",
                 "dropped_jobs", "pdbs", "resource_quotas", "hypernodes"):  # fmt: skip
        _diff(plain(getattr(a, name)), plain(getattr(b, name)), f"cluster.{name}", out)
    _diff(plain(a.arrays), plain(b.arrays), "cluster.arrays", out)
    _diff(sorted(a.resource_index.names), sorted(b.resource_index.names), "index", out)
    return out
