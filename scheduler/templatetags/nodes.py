"""Template filters of the Nodes pages."""

from __future__ import annotations

from typing import Any

from django import template

from apis.quantity import format_quantity
from apis.wire import is_binary_resource

__all__ = ["quantity"]

register = template.Library()


@register.filter
def quantity(resources: Any, name: str) -> str:
    """Return resource ``name`` of a milli-unit resource list as a quantity ("—" when absent)."""
    value = (resources or {}).get(name) if isinstance(resources, dict) else None
    if not value:
        return "—"
    return format_quantity(int(value), binary=is_binary_resource(name))
