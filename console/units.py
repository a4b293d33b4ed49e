"""Amounts for reading: computed shares rounded, in each resource's own unit.

Unlike the exact wire form (``format_quantity``: ``3333333u``), a deserved cpu of 3333.333
milli-cores reads ``3.33`` and 10.5 GiB of memory ``10.5Gi``. Used by templates (the
``amount`` and ``quantity`` filters) and by views that prepare table cells. Every page prints
amounts through here, so cores are never ``166750m`` on one page and ``166.75`` on another:
``quantity`` adds the unit a bare number lacks (``2.5 cores``, ``3 GPUs``; memory carries its
own, ``10.5Gi``) and ``pair`` reads ``33 / 336 cores``.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import ngettext

from apis.wire import is_binary_resource

__all__ = ["AXIS_UNITS", "amount", "axis_unit", "pair", "quantity", "unit_of"]

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


def unit_of(resource: str, milli: Any) -> str:
    """Return the word after a bare amount of ``resource`` ("" when the amount carries one)."""
    try:
        count = float(milli) / 1000.0
    except (TypeError, ValueError):
        return ""
    whole = 1 if count == 1 else 2  # ngettext's plural choice for 0.5, 2, 336...
    if resource == "cpu":
        return ngettext("core", "cores", whole)
    if resource.endswith("/gpu") or resource.endswith("gpu-number"):
        return ngettext("GPU", "GPUs", whole)
    if resource == "pods":
        return ngettext("pod", "pods", whole)
    return ""


def quantity(milli: Any, resource: str = "cpu") -> str:
    """Return ``milli`` for reading with its unit: ``2.5 cores``, ``10.5Gi``, ``1 GPU``."""
    text = amount(milli, resource)
    if text == "—" or is_binary_resource(str(resource)):
        return text
    unit = unit_of(str(resource), milli)
    return f"{text} {unit}" if unit else text


def pair(used: Any, total: Any, resource: str = "cpu") -> str:
    """Return ``used / total`` with the unit once, after the total: ``33 / 336 cores``."""
    return f"{amount(used, resource)} / {quantity(total, resource)}"


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
