"""What-if runs in the background: the page starts one, then polls its progress and result.

A what-if on a large cluster takes a second or more; the request that starts it returns at once
and the run goes on in a thread of the server process, reporting its progress here. Runs live
in memory (the server that started one answers its polls; the embedded server is one process)
and only the newest few are kept. Each run remembers who started it: only they see it.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connection

from scheduler.whatif import QueueChanges, WhatIfError, WhatIfReport, run_what_if

__all__ = ["WhatIfRun", "get_run", "start_run"]

_KEEP = 4  # each keeps its snapshot (for the scenario file): a few hundred MB at 50,000 pods
_lock = threading.Lock()
_runs: OrderedDict[str, WhatIfRun] = OrderedDict()


@dataclass(slots=True)
class WhatIfRun:
    """One what-if: its input, progress (0..1), current step, and the report or the error."""

    id: str
    user_id: int | None
    draft_text: str | None
    queue_changes: dict[str, dict[str, Any]]
    started: float = field(default_factory=time.monotonic)
    progress: float = 0.0
    step: str = "queued"
    report: WhatIfReport | None = None
    error: str = ""
    error_field: str = ""

    @property
    def done(self) -> bool:
        """Return True once the run has a report or an error."""
        return self.report is not None or bool(self.error)

    @property
    def elapsed(self) -> float:
        """Return the seconds since the run started."""
        return time.monotonic() - self.started

    def execute(self) -> None:
        """Run the what-if, recording progress and the outcome (never raises)."""

        def progress(fraction: float, step: str) -> None:
            self.progress, self.step = fraction, step

        try:
            self.report = run_what_if(
                self.draft_text, queue_changes=self.queue_changes, progress=progress
            )
        except WhatIfError as exc:
            self.error, self.error_field = exc.message, exc.field
        except Exception as exc:  # shown on the page; the server goes on
            self.error = f"{type(exc).__name__}: {exc}"


def _in_thread(run: WhatIfRun) -> None:
    close_old_connections()
    try:
        run.execute()
    finally:
        connection.close()  # this thread's own connection


def start_run(
    *, user: Any, draft_text: str | None, queue_changes: QueueChanges | None = None
) -> WhatIfRun:
    """Start a what-if and return its run at once (inline when ``VOLCANO_WHATIF_INLINE``)."""
    run = WhatIfRun(
        id=uuid.uuid4().hex[:16],
        user_id=getattr(user, "pk", None),
        draft_text=draft_text,
        queue_changes={k: dict(v) for k, v in (queue_changes or {}).items()},
    )
    with _lock:
        _runs[run.id] = run
        while len(_runs) > _KEEP:
            _runs.popitem(last=False)
    if getattr(settings, "VOLCANO_WHATIF_INLINE", False):
        run.execute()  # tests: same connection, same transaction
    else:
        threading.Thread(
            target=_in_thread, args=(run,), name=f"what-if-{run.id}", daemon=True
        ).start()
    return run


def get_run(run_id: str, *, user: Any) -> WhatIfRun | None:
    """Return the run ``run_id`` if ``user`` started it."""
    with _lock:
        run = _runs.get(run_id)
    if run is None or run.user_id != getattr(user, "pk", None):
        return None
    return run
