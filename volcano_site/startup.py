"""What a serving process does once Django is set up: load every view, then freeze the heap.

Why: a full (generation 2) garbage collection walks every tracked object of the process,
and after start-up that is Django's, the apps' and plotly's ~170,000 module-level objects,
which live as long as the process. A collection that happened to fall inside a request cost
it about 100 ms (``bench/metrics_pages.py``: one chart in seven paid it). ``gc.freeze()``
moves what exists at start-up out of the collector's sight (CPython's advice for servers),
so a collection walks only what requests made. The URLconf is loaded first so the views'
modules (and plotly) are part of what is frozen.
"""

from __future__ import annotations

import gc

from django.urls import get_resolver

__all__ = ["freeze_startup_heap"]


def freeze_startup_heap() -> None:
    """Load the URLconf (every view module), collect once, and freeze what is left."""
    get_resolver().url_patterns  # noqa: B018  (imports every view module)
    gc.collect()
    gc.freeze()
