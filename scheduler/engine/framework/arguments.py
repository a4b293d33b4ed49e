"""Plugin and action arguments: a declared schema on the class, validated when the conf is parsed.

Volcano's counterpart: ``pkg/scheduler/framework/arguments.go``. Volcano reads ``arguments`` as an
untyped map and silently ignores what it does not know; here every plugin and action declares what
it accepts (``arguments_schema`` on its class, a tuple of ``ArgSpec``) so ``conf.py`` can refuse an
unknown name or a wrong type with the path of the bad field, and the plugin reads typed values with
the declared defaults filled in::

    arguments_schema = (
        ArgSpec("binpack.weight", float, 1),
        ArgSpec("binpack.resources", str, ""),
        ArgSpec("binpack.resources.", float, 1, prefix=True),   # binpack.resources.<name>
    )
    ...
    weight = self.arguments.get_float("binpack.weight")
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from apis.errors import ConfError

__all__ = ["ArgSpec", "Arguments", "validate_arguments"]

ArgType = type[bool] | type[int] | type[float] | type[str]


@dataclass(slots=True, frozen=True)
class ArgSpec:
    """One accepted argument: its name (or name prefix), its type and its default."""

    name: str
    type: ArgType
    default: bool | int | float | str | None = None
    prefix: bool = False  # accepts any key starting with ``name``
    help: str = ""
    # The key lives in a nested mapping, as Volcano's ``thresholds: {cpu: 80}``: ``section`` is
    # that mapping's key and ``name`` is ``<section>.<key>`` (how the plugin reads it).
    section: str = ""
    # A ``str`` argument Volcano reads as a YAML list of strings (``extender.managedResources``):
    # the list is accepted and kept joined by commas, the form the editor shows and reads back.
    listed: bool = False
    # A ``str`` argument Volcano reads as nested YAML (rescheduling's ``strategies``, a list of
    # mappings): ``nested(value, field)`` checks the structure, raising ``ConfError`` at the bad
    # inner field, and returns it as canonical JSON text, which the plugin decodes.
    nested: Callable[[object, str], str] | None = None

    def matches(self, key: str) -> bool:
        """Return True when this spec covers argument ``key``."""
        return (
            key.startswith(self.name) and len(key) > len(self.name)
            if self.prefix
            else key == self.name
        )


def _shown(value: object) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _coerce(spec: ArgSpec, value: object, field: str) -> bool | int | float | str:
    kind = spec.type
    if spec.nested is not None:
        return spec.nested(value, field)
    if kind is bool:
        if isinstance(value, bool):
            return value
        raise ConfError(field, f"expected true or false, got {_shown(value)}")
    if kind is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        raise ConfError(field, f"expected an integer, got {_shown(value)}")
    if kind is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        raise ConfError(field, f"expected a number, got {_shown(value)}")
    if isinstance(value, str):
        return value
    if spec.listed and isinstance(value, list):
        if all(isinstance(item, str) for item in value):
            return ",".join(value)
        raise ConfError(field, f"expected a list of strings, got {_shown(value)}")
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)  # YAML turns `key: 10` into a number; a string argument accepts it
    raise ConfError(field, f"expected a string, got {_shown(value)}")


def validate_arguments(
    schema: tuple[ArgSpec, ...], raw: object, *, field: str, owner: str
) -> Arguments:
    """Return typed ``Arguments`` for ``raw``, or raise ``ConfError`` naming the bad key."""
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise ConfError(field, f"expected a mapping of arguments, got {_shown(raw)}")
    values: dict[str, bool | int | float | str] = {}
    for key, value in raw.items():
        key_text = str(key)
        if any(s.section == key_text for s in schema):
            values.update(
                _section(schema, key_text, value, field=f"{field}.{key_text}", owner=owner)
            )
            continue
        spec = next((s for s in schema if not s.section and s.matches(key_text)), None)
        if spec is None:
            known = ", ".join(
                dict.fromkeys(s.section or s.name + ("<name>" if s.prefix else "") for s in schema)
            )
            known = known or "none"
            raise ConfError(
                f"{field}.{key_text}", f"unknown argument for {owner} (accepted: {known})"
            )
        values[key_text] = _coerce(spec, value, f"{field}.{key_text}")
    return Arguments(values, schema)


def _section(
    schema: tuple[ArgSpec, ...], section: str, raw: object, *, field: str, owner: str
) -> dict[str, bool | int | float | str]:
    """Return the typed values of one nested section, keyed ``<section>.<key>``."""
    if not isinstance(raw, Mapping):
        raise ConfError(field, f"expected a mapping, got {_shown(raw)}")
    specs = [s for s in schema if s.section == section]
    values: dict[str, bool | int | float | str] = {}
    for key, value in raw.items():
        name = f"{section}.{key}"
        spec = next((s for s in specs if s.matches(name)), None)
        if spec is None:
            known = ", ".join(s.name[len(section) + 1 :] for s in specs)
            raise ConfError(f"{field}.{key}", f"unknown argument for {owner} (accepted: {known})")
        values[name] = _coerce(spec, value, f"{field}.{key}")
    return values


class Arguments:
    """Validated argument values; getters fill in the schema's defaults."""

    __slots__ = ("_schema", "_values")

    def __init__(
        self,
        values: Mapping[str, bool | int | float | str] | None = None,
        schema: tuple[ArgSpec, ...] = (),
    ) -> None:
        self._values = dict(values or {})
        self._schema = schema

    def _default(self, name: str) -> bool | int | float | str | None:
        for spec in self._schema:
            if spec.matches(name) or spec.name == name:
                return spec.default
        return None

    def get(self, name: str) -> bool | int | float | str | None:
        """Return the value of ``name`` (its default when not given)."""
        return self._values[name] if name in self._values else self._default(name)

    def is_set(self, name: str) -> bool:
        """Return True when the conf gave ``name`` explicitly."""
        return name in self._values

    def get_bool(self, name: str) -> bool:
        """Return ``name`` as a bool."""
        return bool(self.get(name))

    def get_int(self, name: str) -> int:
        """Return ``name`` as an int (0 when neither given nor defaulted)."""
        value = self.get(name)
        return int(value) if isinstance(value, int | float) else 0

    def get_float(self, name: str) -> float:
        """Return ``name`` as a float (0.0 when neither given nor defaulted)."""
        value = self.get(name)
        return float(value) if isinstance(value, int | float) else 0.0

    def get_str(self, name: str) -> str:
        """Return ``name`` as a string ('' when neither given nor defaulted)."""
        value = self.get(name)
        return "" if value is None else str(value)

    def with_prefix(self, prefix: str) -> dict[str, bool | int | float | str]:
        """Return the given arguments whose key starts with ``prefix`` (prefix stripped)."""
        return {k[len(prefix) :]: v for k, v in self._values.items() if k.startswith(prefix)}

    def as_dict(self) -> dict[str, bool | int | float | str]:
        """Return the explicitly given values."""
        return dict(self._values)

    def __repr__(self) -> str:
        return f"Arguments({self._values!r})"
