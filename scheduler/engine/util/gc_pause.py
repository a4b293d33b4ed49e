"""Holding Python's automatic garbage collection off around a block (a session, a snapshot read)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["no_automatic_gc"]


@contextmanager
def no_automatic_gc() -> Iterator[None]:
    """Hold Python's automatic cyclic garbage collection off for the block, then restore it.

    Why: a session allocates tens of thousands of small objects (heap entries, conditions,
    per-job accounting) that live until it ends, so automatic passes during it free next to
    nothing, yet a full pass walks the whole snapshot (hundreds of thousands of objects): on
    10,000 one-pod jobs the passes took 0.3 s of a 1.1 s session. Reference counting still
    frees acyclic garbage at once. After the block, the first automatic young pass scans what
    the session left alive once (12-27 ms for those 10,000 jobs) and promotes it as usual, so
    the collector's accounting, and with it the rhythm of full passes that reclaim finished
    sessions (a session and its plugins form reference cycles), is what it would have been.

    The collector's state is process-wide and the embedded worker runs sessions in a thread of
    the server process: only a caller that found collection enabled disables it, and it
    re-enables it in ``finally`` whatever happens; a caller that keeps collection off, or a
    session overlapping another, leaves the setting as it found it. Cyclic garbage other
    threads make meanwhile waits until then.
    """
    enabled = gc.isenabled()
    if enabled:
        gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
