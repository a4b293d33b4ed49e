"""PostgreSQL array parameters sent as one text literal (``'{1,2,3}'``), cast in SQL.

Why: Django binds parameters on the client (psycopg's ``ClientCursor``), which renders a list
parameter element by element, each checked for quoting with a regular expression. The 50,000
binds of a large session sent about 460,000 elements that way: a second of the write-back's
CPU. An array written here as one string and cast in the statement (``%s::bigint[]``) is a
single parameter to quote, whatever its length.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["int_array", "text_array"]


def int_array(values: Iterable[int]) -> str:
    """Return the literal of a ``bigint[]`` holding ``values`` (cast it: ``%s::bigint[]``)."""
    return "{" + ",".join(map(str, map(int, values))) + "}"  # C loops: 3x a generator


def _element(value: str | None) -> str:
    if value is None:
        return "NULL"
    # Inside double quotes only a backslash and a double quote need escaping.
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def text_array(values: Iterable[str | None]) -> str:
    """Return the literal of a ``text[]`` holding ``values`` (None is NULL; ``%s::text[]``)."""
    return "{" + ",".join(_element(v) for v in values) + "}"
