"""Engine objects made or copied by generated straight-line code, for reads of 50,000 pods.

Two generators over a slots dataclass, as ``dataclasses`` itself generates ``__init__``:

- ``slot_copier``: a shallow copy, slot by slot (0.7 us a ``TaskInfo``; a loop of ``setattr``
  costs three times as much, ``copy.copy`` ten times);
- ``tuple_maker``: a new object from a tuple of some fields in a fixed order, every other field
  at its declared default, then the class's own ``__post_init__``: the constructor without
  its keyword parsing (about half the cost of ``TaskInfo(**...)`` with twenty keywords; a
  third of a frozen ``NodeUsage``'s).

Both follow the class's declared fields and slots, so a field the engine adds later is copied,
or defaulted, without a change here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

__all__ = ["slot_copier", "tuple_maker"]

T = TypeVar("T")


def slot_copier(cls: type[T]) -> Callable[[T], T]:
    """Return a function making a shallow copy of a ``cls`` (a slots dataclass), slot by slot."""
    slots: tuple[str, ...] = cls.__slots__  # type: ignore[attr-defined]
    body = "".join(f"    c.{name} = o.{name}\n" for name in slots)
    namespace: dict[str, Any] = {"cls": cls, "new": object.__new__}
    exec(f"def copy(o):\n    c = new(cls)\n{body}    return c\n", namespace)
    copier: Callable[[T], T] = namespace["copy"]
    return copier


def tuple_maker(cls: type[T], names: Sequence[str]) -> Callable[[Sequence[Any]], T]:
    """Return a function making a ``cls`` whose fields ``names`` are the items of a tuple."""
    given = {name: i for i, name in enumerate(names)}
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = set(given) - set(fields)
    if unknown:
        raise TypeError(f"{cls.__name__} has no fields {sorted(unknown)}")
    namespace: dict[str, Any] = {"cls": cls, "new": object.__new__, "put": object.__setattr__}
    frozen = cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
    lines = ["def make(f):", "    c = new(cls)"]
    for name, f in fields.items():
        if not f.init:
            continue
        if name in given:
            value = f"f[{given[name]}]"
        elif f.default is not dataclasses.MISSING:
            namespace[f"default_{name}"] = f.default
            value = f"default_{name}"
        elif f.default_factory is not dataclasses.MISSING:
            namespace[f"factory_{name}"] = f.default_factory
            value = f"factory_{name}()"
        else:
            raise TypeError(f"{cls.__name__}.{name} has no default and is not given")
        # A frozen class's own constructor sets its fields the same way.
        lines.append(f"    put(c, {name!r}, {value})" if frozen else f"    c.{name} = {value}")
    if hasattr(cls, "__post_init__"):
        lines.append("    c.__post_init__()")
    lines.append("    return c")
    exec("\n".join(lines) + "\n", namespace)
    maker: Callable[[Sequence[Any]], T] = namespace["make"]
    return maker
