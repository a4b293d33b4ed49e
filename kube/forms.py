"""Form fields shared by the admin and the console: resource lists typed as quantities.

A resource list is stored as milli-units (``{"cpu": 4000}``) but people read and
write ``cpu=4, memory=4Gi``; this field converts both ways with the one quantity
module, and reports a bad quantity by resource name.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from apis.errors import QuantityError
from apis.quantity import parse_quantity
from apis.wire import format_resources

__all__ = ["ResourceListField", "format_resource_list"]


def format_resource_list(resources: dict[str, int] | None) -> str:
    """Return ``cpu=4, memory=4Gi`` for a resource list of milli-units (``""`` when empty)."""
    return ", ".join(f"{name}={text}" for name, text in format_resources(resources or {}).items())


class ResourceListField(forms.CharField):
    """A ``name=quantity, ...`` text field whose value is ``{name: milli-units}``."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("help_text", "Comma-separated name=quantity, e.g. cpu=4, memory=8Gi")
        super().__init__(**kwargs)

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, dict):
            return format_resource_list(value)
        return value

    def to_python(self, value: Any) -> dict[str, int]:  # type: ignore[override]
        if isinstance(value, dict):
            return value
        text = super().to_python(value) or ""
        resources: dict[str, int] = {}
        for item in filter(None, (part.strip() for part in text.split(","))):
            name, sep, quantity = item.partition("=")
            name = name.strip()
            if not sep or not name:
                raise ValidationError(f"{item!r}: expected name=quantity")
            try:
                resources[name] = parse_quantity(quantity.strip(), field=name)
            except QuantityError as exc:
                raise ValidationError(str(exc)) from exc
        return resources
