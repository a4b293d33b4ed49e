"""Reading a stored JSON column again through its manifest reader.

The topology and affinity blocks live in JSON columns in their wire shape. The API only
stores what their readers accepted, but the admin edits the columns as typed, so admission
first reads the value again, as the API would, and names the field of a misshapen one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from apis.wire import Fields

__all__ = ["reread"]

T = TypeVar("T")


def reread(read: Callable[[Fields, str], T], value: Any, at: str) -> T:
    """Return a stored JSON ``value`` read again by ``read``, at wire path ``at``.

    ``read(fields, key)`` reads ``key`` of ``fields``; a misshapen value raises
    ``ManifestError`` naming the field, as the API's reading of a manifest would.
    """
    parent, _dot, key = at.rpartition(".")
    return read(Fields({key: value}, parent), key)
