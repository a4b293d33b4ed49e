"""The rescheduling plugin's arguments: ``interval``, ``metricsPeriod`` and ``strategies``.

Volcano's counterpart: ``pkg/scheduler/plugins/rescheduling/rescheduling.go`` (``Configs``,
``parseArguments``) and ``low_node_utilization.go`` (``LowNodeUtilizationConf``). ``strategies``
is the one nested argument of Volcano's plugins, a list of ``{name, params}``::

    strategies:
    - name: lowNodeUtilization
      params:
        thresholds: {cpu: 20, memory: 20, pods: 20}
        targetThresholds: {cpu: 50, memory: 50, pods: 50}

Volcano decodes it loosely and panics on a percentage that is not an integer; here the conf
parser checks it (``check_strategies``, the ``ArgSpec.nested`` hook) and names the bad inner
field. What Volcano tolerates silently stays tolerated: any strategy name (only
``lowNodeUtilization`` has a victim function, the others select nothing), any resource name in
the thresholds (only ``cpu`` and ``memory`` are ever compared: Volcano updates ``cpu``,
``memory`` and ``pod``, and measures only cpu and memory), and the LowNodeUtilization fields
it declares but never reads (``numberOfNodes``, ``thresholdPriority``,
``thresholdPriorityClassName``, ``nodeFit``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from apis.durations import parse_duration
from apis.errors import ConfError

__all__ = [
    "DEFAULT_INTERVAL",
    "DEFAULT_METRICS_PERIOD",
    "LOW_NODE_UTILIZATION",
    "LowNodeUtilizationConf",
    "Strategy",
    "check_strategies",
    "parse_interval",
    "read_strategies",
]

LOW_NODE_UTILIZATION = "lowNodeUtilization"
DEFAULT_INTERVAL = 5 * 60.0  # seconds
DEFAULT_METRICS_PERIOD = "5m"
# Go's time.Duration holds at most 2^63-1 nanoseconds; ParseDuration refuses longer ones.
_MAX_DURATION = (2**63 - 1) / 1e9
_THRESHOLD_KEYS = ("thresholds", "targetThresholds")
# LowNodeUtilizationConf's fields: the two maps above are read, these are declared only.
_UNREAD_KEYS = {
    "numberOfNodes": int,
    "thresholdPriority": int,
    "thresholdPriorityClassName": str,
    "nodeFit": bool,
}


def parse_interval(text: str) -> float:
    """Return the interval in seconds; Volcano's 5 minutes when ``text`` is not a Go duration.

    Volcano reads an absent interval as "" too, which fails to parse: also 5 minutes.
    """
    try:
        seconds = parse_duration(text)
    except ValueError:
        return DEFAULT_INTERVAL
    return seconds if abs(seconds) <= _MAX_DURATION else DEFAULT_INTERVAL


@dataclass(frozen=True, slots=True)
class Strategy:
    """One entry of ``strategies``: its name and its params (None when not given)."""

    name: str
    params: Mapping[str, Any] | None = None


def _default_thresholds() -> dict[str, float]:
    return {"cpu": 100.0, "memory": 100.0, "pods": 100.0}


@dataclass(slots=True)
class LowNodeUtilizationConf:
    """The thresholds the lowNodeUtilization strategy compares node utilization with (percent).

    Both start at Volcano's defaults, 100 for ``cpu``, ``memory`` and ``pods``; params update
    ``cpu``, ``memory`` and ``pod`` (sic: Volcano's key, not ``pods``), nothing else.
    """

    thresholds: dict[str, float] = field(default_factory=_default_thresholds)
    target_thresholds: dict[str, float] = field(default_factory=_default_thresholds)

    @classmethod
    def from_params(cls, params: Mapping[str, Any] | None) -> LowNodeUtilizationConf:
        """Return the conf ``params`` describe (the defaults when there are none)."""
        conf = cls()
        for key, target in (("thresholds", conf.thresholds),
                            ("targetThresholds", conf.target_thresholds)):  # fmt: skip
            given = (params or {}).get(key) or {}
            for name in ("cpu", "memory", "pod"):
                if name in given:
                    target[name] = float(given[name])
        return conf


def _shown(value: object) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _check_thresholds(value: object, field: str) -> dict[str, int]:
    if not isinstance(value, Mapping):
        raise ConfError(field, f"expected a mapping of resource to percent, got {_shown(value)}")
    out: dict[str, int] = {}
    for name, percent in value.items():
        if not isinstance(name, str):
            raise ConfError(field, f"expected resource names, got {_shown(name)}")
        if isinstance(percent, bool) or not isinstance(percent, int):
            raise ConfError(
                f"{field}.{name}", f"expected an integer percent, got {_shown(percent)}"
            )
        out[name] = percent
    return out


def _check_lnu_params(value: Mapping[Any, Any], field: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in value.items():
        path = f"{field}.{key}"
        if key in _THRESHOLD_KEYS:
            out[key] = _check_thresholds(item, path)
        elif key in _UNREAD_KEYS:
            kind = _UNREAD_KEYS[key]
            if not isinstance(item, kind) or (kind is int and isinstance(item, bool)):
                raise ConfError(path, f"expected {kind.__name__}, got {_shown(item)}")
            out[key] = item
        else:
            known = ", ".join((*_THRESHOLD_KEYS, *_UNREAD_KEYS))
            raise ConfError(path, f"unknown param of {LOW_NODE_UTILIZATION} (accepted: {known})")
    return out


def check_strategies(value: object, field: str) -> str:
    """Return ``strategies`` as canonical JSON, or raise ``ConfError`` naming the bad field."""
    if not isinstance(value, list):
        raise ConfError(
            field, f"expected a list of strategies ({{name, params}}), got {_shown(value)}"
        )
    out: list[dict[str, Any]] = []
    for i, item in enumerate(value):
        path = f"{field}[{i}]"
        if not isinstance(item, Mapping):
            raise ConfError(path, f"expected a mapping with a name, got {_shown(item)}")
        for key in item:
            if key not in ("name", "params"):
                raise ConfError(f"{path}.{key}", "unknown field (expected name and params)")
        name = item.get("name")
        if not isinstance(name, str) or not name:
            raise ConfError(f"{path}.name", f"expected a strategy name, got {_shown(name)}")
        entry: dict[str, Any] = {"name": name}
        params = item.get("params")
        if params is not None:
            if not isinstance(params, Mapping):
                raise ConfError(f"{path}.params", f"expected a mapping, got {_shown(params)}")
            if name == LOW_NODE_UTILIZATION:
                entry["params"] = _check_lnu_params(params, f"{path}.params")
            else:  # a strategy Volcano has no victim function for: kept, never read
                try:
                    entry["params"] = json.loads(json.dumps(params, default=str))
                except (TypeError, ValueError) as exc:
                    raise ConfError(f"{path}.params", str(exc)) from exc
        out.append(entry)
    return json.dumps(out, sort_keys=True)


def read_strategies(text: str) -> tuple[Strategy, ...] | None:
    """Return the strategies ``check_strategies`` wrote (None: not given, or an empty list).

    Volcano keeps its default strategy when the list is absent or empty.
    """
    if not text:
        return None
    entries = json.loads(text)
    if not entries:
        return None
    return tuple(Strategy(e["name"], e.get("params")) for e in entries)
