"""Start the embedded scheduler loop inside the server process, and stop it with the process.

``make run`` sets ``VOLCANO_EMBEDDED_SCHEDULER=1`` for the server; ``volcano_site.asgi`` calls
``start`` once Django is set up (not from ``ready()``: the loop's first cycle would query the
database while the apps are still initialising, which Django warns about). ``make run DEMO=1`` also sets ``VOLCANO_DEMO_STREAM=1``: a second thread
keeps submitting demo jobs (``scheduler/demo``). Management commands, tests and Celery workers never set it, so they never
start a loop by accident. The thread is a daemon stopped from ``atexit``: the interpreter runs
``atexit`` handlers on a normal exit (daphne's SIGINT/SIGTERM shutdown), the loop finishes the
cycle in progress, gives up the lease and closes its database connection.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading

__all__ = ["ENV_FLAG", "start"]

ENV_FLAG = "VOLCANO_EMBEDDED_SCHEDULER"
DEMO_FLAG = "VOLCANO_DEMO_STREAM"
_lock = threading.Lock()
_started: list[object] = []


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


def wanted() -> bool:
    """Return True when this process is a server asked to run the embedded loop."""
    return _flag(ENV_FLAG) and "pytest" not in sys.modules


def start() -> object | None:
    """Start the loop once per process (None when it is not wanted here)."""
    if not wanted():
        return None
    with _lock:
        if _started:
            return _started[0]
        # Called once the apps are ready: the worker imports models.
        from scheduler.worker import EmbeddedWorker

        worker = EmbeddedWorker()
        worker.start()
        atexit.register(worker.stop)
        _started.append(worker)
        if _flag(DEMO_FLAG):
            # Only a demo run loads the demo (it imports the apps' services).
            from scheduler.demo import DemoStream

            stream = DemoStream()
            stream.start()
            atexit.register(stream.stop)
            _started.append(stream)
        return worker
