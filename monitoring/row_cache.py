"""Decoded history rows kept per process, so a chart decodes only the rows it has not seen.

A week's chart reads about 1,200 stored rows, and decompressing and unpacking each one was
most of its time, every view again. A row of the history is written once and never changed
(the recorder and the roll-ups create rows, retention deletes them), so what a row decodes to
can be kept: a live chart then decodes only the rows recorded since its last view. Kept by the
row's id and a checksum of its stored bytes (a database rebuilt under the same ids, as each
test's is, gives other bytes), per decoder, the least recently used dropped past ``LIMIT``
rows per decoder (a week at ten minutes, a day at a minute and the last quarter hour per
session, about 3,000 rows, stay; at 100 queues a row's queue blocks take about 16 KiB).

The decoded values are shared between the charts that read them: the decoders return
read-only arrays and fresh dictionaries that the readers (``monitoring.history``) never change.
"""

from __future__ import annotations

import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["LIMIT", "clear", "decoded"]

T = TypeVar("T")
LIMIT = 3_200
_lock = threading.Lock()  # the ASGI server reads charts on several threads
_kept: dict[Callable[..., Any], OrderedDict[tuple[int, int, int], Any]] = {}


def decoded(pk: int, blob: bytes | memoryview, decode: Callable[[bytes | memoryview], T]) -> T:
    """Return ``decode(blob)`` for the stored row ``pk``, decoded once per process."""
    key = (pk, len(blob), zlib.crc32(blob))
    with _lock:
        kept = _kept.setdefault(decode, OrderedDict())
        value = kept.get(key)
        if value is not None:
            kept.move_to_end(key)
            return value
    value = decode(blob)
    with _lock:
        kept[key] = value
        while len(kept) > LIMIT:
            kept.popitem(last=False)
    return value


def clear() -> None:
    """Forget every decoded row (a test that compares with a cold read)."""
    with _lock:
        _kept.clear()
