"""The seam between the database and the pure engine (``scheduler/cache.py`` in DESIGN.md).

Volcano's counterpart: ``pkg/scheduler/cache`` (Snapshot, Bind, Evict, UpdateJobStatus). Only this
package turns rows into engine objects (``snapshot.read_snapshot``) and the engine's ``Decisions``
back into rows (``apply.apply_decisions``); nothing else in the project builds a ``ClusterInfo``
from the database. It is a package rather than one module because reading, writing and exporting
are three jobs of 150-300 lines each.
"""

from __future__ import annotations

from scheduler.cache.apply import ApplyResult, apply_decisions
from scheduler.cache.bind_pipeline import BindPipeline
from scheduler.cache.export import snapshot_to_scenario
from scheduler.cache.snapshot import Snapshot, read_snapshot
from scheduler.cache.status import write_queue_status

__all__ = [
    "ApplyResult",
    "BindPipeline",
    "Snapshot",
    "apply_decisions",
    "read_snapshot",
    "snapshot_to_scenario",
    "write_queue_status",
]
