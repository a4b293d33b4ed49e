"""The wire form of Kubernetes objects: typed reading with field paths, and canonical writing.

Every manifest loader reads through ``Fields``: each getter checks the type of
one key and records it as known, and ``done()`` refuses any key nobody asked
for. So an unknown field or a wrong type is a ``ManifestError`` naming the exact
path (``spec.tasks[0].replicas: expected an integer, got "two"``), never a
silently ignored typo. Writing goes through the ``put_*`` helpers, so every
kind prints quantities and times the same way.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator, Mapping
from typing import Any

from apis.errors import ManifestError, QuantityError
from apis.quantity import format_quantity, parse_quantity

__all__ = [
    "Fields",
    "Manifest",
    "format_resources",
    "format_time",
    "is_binary_resource",
    "plain_json",
    "type_name",
]

Manifest = dict[str, Any]

# Resources measured in bytes print with binary suffixes (4Gi); the rest as plain numbers.
_BINARY_RESOURCES = ("memory", "storage", "ephemeral-storage")


def type_name(value: object) -> str:
    """Return the JSON name of ``value``'s type, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return f"string {value!r}"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list):
        return "array"
    return type(value).__name__


def is_binary_resource(name: str) -> bool:
    """Return whether resource ``name`` counts bytes (memory, storage, hugepages-*).

    A quota name counts what it names: ``requests.memory`` and ``limits.memory`` are bytes.
    """
    for prefix in ("requests.", "limits."):
        name = name.removeprefix(prefix)
    return name in _BINARY_RESOURCES or name.startswith("hugepages-")


def format_resources(resources: Mapping[str, int]) -> dict[str, str]:
    """Return a resource list of milli-units as Kubernetes quantities, keys sorted."""
    return {
        name: format_quantity(milli, binary=is_binary_resource(name))
        for name, milli in sorted(resources.items())
    }


def format_time(value: dt.datetime) -> str:
    """Return an aware datetime as RFC 3339 in UTC with second precision (``...Z``)."""
    return value.astimezone(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def plain_json(value: object, path: str) -> Any:
    """Return ``value`` as plain JSON data, refusing what JSON cannot hold.

    YAML turns an unquoted ``2024-01-01`` into a date; free-form parts of a
    manifest (pod templates) must stay JSON, so such values are refused by path.
    """
    if isinstance(value, str):
        return str(value)  # an enum member (TextChoices) becomes its plain value
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, Mapping):
        result = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ManifestError(path, f"keys must be strings, got {type_name(key)}")
            result[key] = plain_json(item, f"{path}.{key}")
        return result
    if isinstance(value, list):
        return [plain_json(item, f"{path}[{index}]") for index, item in enumerate(value)]
    raise ManifestError(path, f"unsupported value of type {type_name(value)}; quote it")


class Fields:
    """One JSON object of a manifest being read at ``path``; refuses keys nobody reads."""

    def __init__(self, data: object, path: str) -> None:
        if not isinstance(data, Mapping):
            raise ManifestError(path or "manifest", f"expected an object, got {type_name(data)}")
        self.data: Mapping[str, Any] = data
        self.path = path
        self._known: set[str] = set()

    def at(self, key: str) -> str:
        """Return the field path of ``key`` inside this object."""
        return f"{self.path}.{key}" if self.path else key

    def names(self) -> list[str]:
        """Return the keys of this object, refusing any that is not a string (YAML allows them)."""
        for key in self.data:
            if not isinstance(key, str):
                raise ManifestError(self.path or "manifest", f"keys must be strings, got {key!r}")
        return list(self.data)

    def has(self, key: str) -> bool:
        """Return whether ``key`` is present and not null."""
        return self.data.get(key) is not None

    def raw(self, key: str) -> Any:
        """Return the value of ``key`` unchecked (``None`` when absent) and mark it known."""
        self._known.add(key)
        return self.data.get(key)

    def error(self, key: str, message: str) -> ManifestError:
        """Return a ``ManifestError`` for ``key`` of this object."""
        return ManifestError(self.at(key), message)

    def string(self, key: str, default: str = "", *, required: bool = False) -> str:
        """Return the string at ``key`` (``default`` when absent)."""
        value = self.raw(key)
        if value is None:
            if required:
                raise self.error(key, "required value")
            return default
        if not isinstance(value, str):
            raise self.error(key, f"expected a string, got {type_name(value)}")
        if required and not value:
            raise self.error(key, "required value")
        return value

    def integer(self, key: str, default: int = 0, *, minimum: int | None = None) -> int:
        """Return the integer at ``key`` (``default`` when absent), at least ``minimum``."""
        value = self.optional_integer(key, minimum=minimum)
        return default if value is None else value

    def optional_integer(self, key: str, *, minimum: int | None = None) -> int | None:
        """Return the integer at ``key`` or ``None`` when absent."""
        value = self.raw(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"expected an integer, got {type_name(value)}")
        if minimum is not None and value < minimum:
            raise self.error(key, f"must be greater than or equal to {minimum}, got {value}")
        return int(value)

    def boolean(self, key: str, default: bool) -> bool:
        """Return the boolean at ``key`` (``default`` when absent)."""
        value = self.raw(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.error(key, f"expected true or false, got {type_name(value)}")
        return value

    def time(self, key: str) -> dt.datetime | None:
        """Return the RFC 3339 time at ``key`` as an aware datetime, or ``None``."""
        value = self.raw(key)
        if value is None:
            return None
        if isinstance(value, dt.datetime):
            parsed = value
        elif isinstance(value, str):
            try:
                parsed = dt.datetime.fromisoformat(value)
            except ValueError as exc:
                raise self.error(key, f"expected an RFC 3339 time, got {value!r}") from exc
        else:
            raise self.error(key, f"expected an RFC 3339 time, got {type_name(value)}")
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=dt.UTC)
        return parsed

    def uid(self, key: str) -> uuid.UUID | None:
        """Return the UUID at ``key`` or ``None``."""
        value = self.string(key)
        if not value:
            return None
        try:
            return uuid.UUID(value)
        except ValueError as exc:
            raise self.error(key, f"expected a UUID, got {value!r}") from exc

    def obj(self, key: str) -> Fields:
        """Return the object at ``key`` (an empty one when absent)."""
        value = self.raw(key)
        return Fields({} if value is None else value, self.at(key))

    def objects(self, key: str) -> Iterator[Fields]:
        """Yield each object of the array at ``key`` (none when absent)."""
        for index, item in enumerate(self.array(key)):
            yield Fields(item, f"{self.at(key)}[{index}]")

    def array(self, key: str) -> list[Any]:
        """Return the array at ``key`` (empty when absent)."""
        value = self.raw(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.error(key, f"expected an array, got {type_name(value)}")
        return value

    def strings(self, key: str) -> list[str]:
        """Return the array of strings at ``key``."""
        values = self.array(key)
        for index, value in enumerate(values):
            if not isinstance(value, str):
                raise ManifestError(
                    f"{self.at(key)}[{index}]", f"expected a string, got {type_name(value)}"
                )
        return list(values)

    def string_map(self, key: str) -> dict[str, str]:
        """Return the object of strings at ``key`` (labels, annotations, nodeSelector)."""
        fields = self.obj(key)
        result = {}
        for name in fields.names():
            result[name] = fields.string(name)
        return result

    def resources(self, key: str) -> dict[str, int]:
        """Return the resource list at ``key`` as canonical milli-units."""
        fields = self.obj(key)
        result = {}
        for name in fields.names():
            fields.raw(name)
            try:
                result[name] = parse_quantity(fields.data[name], field=fields.at(name))
            except QuantityError as exc:
                raise ManifestError(exc.field, exc.message) from exc
        return result

    def json(self, key: str, default: Any) -> Any:
        """Return the free-form JSON value at ``key`` (``default`` when absent)."""
        value = self.raw(key)
        return default if value is None else plain_json(value, self.at(key))

    def ignore(self, *keys: str) -> None:
        """Accept ``keys`` without reading them (server-managed fields such as managedFields)."""
        self._known.update(keys)

    def done(self) -> None:
        """Refuse the first key of this object that no getter asked for."""
        for key in self.data:
            if key not in self._known:
                raise ManifestError(self.at(str(key)), "unknown field")
