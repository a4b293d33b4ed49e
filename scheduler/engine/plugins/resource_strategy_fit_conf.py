"""resource-strategy-fit's arguments: the nested maps Volcano reads, checked and normalised.

Volcano's counterpart: ``calculateWeight``, ``calculateSraWeight`` and
``calculateProportionalResources`` in ``pkg/scheduler/plugins/resource-strategy-fit``. Volcano
decodes the nested maps with mapstructure and exits on a wrong type; here the conf parser refuses
it with the path of the bad field (``check_*`` below, used as ``ArgSpec.nested``), and the plugin
reads the canonical JSON back (``read_*``) with Volcano's fallbacks applied:

- ``resources``: absent or empty -> cpu and memory LeastAllocated weight 1; weight <= 0 -> 1; a
  type other than MostAllocated / LeastAllocated -> LeastAllocated; a key with ``*`` is kept only
  as a single trailing ``*`` (``nvidia.com/*``), ``*`` alone is dropped.
- ``sra.resources`` / ``proportional.resources``: comma-separated names, blanks skipped;
  ``sra.resourceWeight`` default 1, negative -> 1; ``proportional.resourceProportion`` keys
  ``<name>.cpu`` / ``<name>.memory``, default 1, negative -> 1.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from apis.errors import ConfError

__all__ = [
    "LEAST_ALLOCATED",
    "MOST_ALLOCATED",
    "ResourceStrategy",
    "check_int_map",
    "check_number_map",
    "check_pod_weights",
    "check_resources",
    "find_strategy",
    "read_proportions",
    "read_resources",
    "read_sra_weights",
    "valid_wildcard",
]

MOST_ALLOCATED = "MostAllocated"
LEAST_ALLOCATED = "LeastAllocated"
_INT64 = 2**63


@dataclass(slots=True, frozen=True)
class ResourceStrategy:
    """How one resource is scored: ``MostAllocated`` or ``LeastAllocated``, and its weight."""

    type: str
    weight: int


def _shown(value: object) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _int(value: object, field: str) -> int:
    """Return an integer as mapstructure decodes one (a whole float is accepted)."""
    if isinstance(value, bool):
        raise ConfError(field, f"expected an integer, got {_shown(value)}")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise ConfError(field, f"expected an integer, got {_shown(value)}")


def _number(value: object, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfError(field, f"expected a number, got {_shown(value)}")
    return float(value)


def _mapping(value: object, field: str, what: str) -> Mapping[object, object]:
    if not isinstance(value, Mapping):
        raise ConfError(field, f"expected a mapping of {what}, got {_shown(value)}")
    return value


def check_resources(value: object, field: str) -> str:
    """Check ``resources`` (name -> {type, weight}); return it as canonical JSON."""
    out: dict[str, dict[str, object]] = {}
    for name, entry in _mapping(value, field, "resource name to {type, weight}").items():
        path = f"{field}.{name}"
        given = _mapping(entry, path, "type and weight") if entry is not None else {}
        item: dict[str, object] = {}
        for key, inner in given.items():
            if key == "type":
                if not isinstance(inner, str):
                    raise ConfError(f"{path}.type", f"expected a string, got {_shown(inner)}")
                item["type"] = inner
            elif key == "weight":
                item["weight"] = _int(inner, f"{path}.weight")
            else:
                raise ConfError(f"{path}.{key}", "unknown field (accepted: type, weight)")
        out[str(name)] = item
    return json.dumps(out, sort_keys=True)


def check_int_map(value: object, field: str) -> str:
    """Check a map of resource name -> integer (``sra.resourceWeight``); return JSON."""
    items = _mapping(value, field, "resource name to integer").items()
    return json.dumps({str(k): _int(v, f"{field}.{k}") for k, v in items}, sort_keys=True)


def check_number_map(value: object, field: str) -> str:
    """Check a map of key -> number (``proportional.resourceProportion``); return JSON."""
    items = _mapping(value, field, "<name>.cpu / <name>.memory to number").items()
    return json.dumps({str(k): _number(v, f"{field}.{k}") for k, v in items}, sort_keys=True)


def valid_wildcard(pattern: str) -> bool:
    """Return True for a name without ``*`` or with a single trailing ``*`` (not ``*`` alone)."""
    if "*" not in pattern:
        return True
    return pattern != "*" and pattern.endswith("*") and pattern.count("*") == 1


def read_resources(text: str) -> dict[str, ResourceStrategy]:
    """Return the scored resources, with Volcano's defaults and fallbacks applied."""
    given: dict[str, dict[str, object]] = json.loads(text) if text else {}
    if not given:
        given = {
            "cpu": {"type": LEAST_ALLOCATED, "weight": 1},
            "memory": {"type": LEAST_ALLOCATED, "weight": 1},
        }
    out: dict[str, ResourceStrategy] = {}
    for name, entry in given.items():
        if not valid_wildcard(name):
            continue
        raw_weight = entry.get("weight", 0)
        weight = raw_weight if isinstance(raw_weight, int) and raw_weight > 0 else 1
        kind = entry.get("type", "")
        if kind not in (MOST_ALLOCATED, LEAST_ALLOCATED):
            kind = LEAST_ALLOCATED
        out[name] = ResourceStrategy(str(kind), weight)
    return out


def find_strategy(name: str, resources: Mapping[str, ResourceStrategy]) -> ResourceStrategy | None:
    """Return the strategy for resource ``name``: exact key, else the longest matching prefix."""
    exact = resources.get(name)
    if exact is not None:
        return exact
    best, found = "", None
    for key, strategy in resources.items():
        if key.endswith("*"):
            prefix = key[:-1]
            if name.startswith(prefix) and len(prefix) > len(best):
                best, found = prefix, strategy
    return found


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def read_sra_weights(resources: str, weights_json: str) -> dict[str, int]:
    """Return SRA's resource -> weight (default 1, negative -> 1)."""
    weights: dict[str, int] = json.loads(weights_json) if weights_json else {}
    out: dict[str, int] = {}
    for name in _names(resources):
        weight = weights.get(name, 1)
        out[name] = 1 if weight < 0 else weight
    return out


def read_proportions(resources: str, proportions_json: str) -> dict[str, tuple[float, float]]:
    """Return proportional's resource -> (cpu per unit, memory G per unit), default 1 each."""
    rates: dict[str, float] = json.loads(proportions_json) if proportions_json else {}
    out: dict[str, tuple[float, float]] = {}
    for name in _names(resources):
        cpu = rates.get(f"{name}.cpu", 1.0)
        memory = rates.get(f"{name}.memory", 1.0)
        out[name] = (1.0 if cpu < 0 else cpu, 1.0 if memory < 0 else memory)
    return out


def check_pod_weights(text: str) -> dict[str, int] | None:
    """Return the pod annotation's resource -> weight JSON, or None when Go could not decode it.

    Go decodes ``volcano.sh/resource-strategy-weight`` into ``map[ResourceName]int``: an object
    of 64-bit integers (``null`` values are 0, ``null`` as a whole is an empty map).
    """
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if value is None:
        return {}
    if not isinstance(value, dict):
        return None
    out: dict[str, int] = {}
    for name, weight in value.items():
        if weight is None:
            out[name] = 0
        elif (
            isinstance(weight, bool)
            or not isinstance(weight, int)
            or not -_INT64 <= weight < _INT64
        ):
            return None
        else:
            out[name] = weight
    return out
