"""Amounts for reading: computed shares rounded, in each resource's own unit.

Unlike the exact wire form (``format_quantity``: ``3333333u``), a deserved cpu of 3333.333
milli-cores reads ``3.33`` and 10.5 GiB of memory ``10.5Gi``. Used by templates (the
``amount`` filter) and by views that prepare table cells.
"""

from __future__ import annotations

from typing import Any

from apis.wire import is_binary_resource

__all__ = ["AXIS_UNITS", "amount", "axis_unit"]

# Charts print amounts in these units (Plotly formats numbers, not Kubernetes quantities).
AXIS_UNITS: dict[str, tuple[str, float]] = {
    "cpu": ("cores", 1000.0),
    "memory": ("GiB", 1000.0 * 2**30),
    "nvidia.com/gpu": ("GPUs", 1000.0),
    "pods": ("pods", 1000.0),
}
_BINARY = (("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10))


def amount(milli: Any, resource: str = "cpu") -> str:
    """Return ``milli`` (milli-units of ``resource``) for reading; ``—`` when unset."""
    if milli is None or milli == "":
        return "—"
    try:
        units = float(milli) / 1000.0
    except (TypeError, ValueError):
        return "—"
    if is_binary_resource(str(resource)):
        for suffix, size in _BINARY:
            if abs(units) >= size:
                return f"{_trim(units / size, 1)}{suffix}"
        return _trim(units, 0)
    return _trim(units, 2)


def _trim(value: float, places: int) -> str:
    text = f"{value:.{places}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def axis_unit(resource: str) -> tuple[str, float]:
    """Return the unit a chart shows ``resource`` in and the divisor from milli-units to it."""
    if resource in AXIS_UNITS:
        return AXIS_UNITS[resource]
    if is_binary_resource(resource):
        return AXIS_UNITS["memory"]
    return resource.rsplit("/", 1)[-1], 1000.0
