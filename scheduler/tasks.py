"""Celery entry point (thin): the scheduling cycle.

Celery beat sends it (and the kubelet's tick, ``kubelet/tasks.py``) every
``VOLCANO_SCHEDULE_PERIOD`` (``volcano_site/celery.py``). Any worker may receive ``schedule``;
only the one that leads runs the cycle. Each worker process elects beside its tasks
(``scheduler.leader.LeaderElector``): the lease stays with its holder while it renews, a standby
answers "standby", and a killed leader is replaced once its lease expires
(``VOLCANO_LEADER_TTL``, Volcano's 15 s by default). The lease is given up when the worker
shuts down.

The controllers are not part of the task's cycle: the process runs them in a thread of its own
beside the election (``scheduler.worker.ControllerLoop``), a pass every period while it leads,
so a session never waits for a controller pass (Volcano's controller-manager is a process of
its own for the same reason).
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from celery import shared_task
from celery.signals import worker_process_shutdown, worker_shutdown
from django.db import close_old_connections

from scheduler.heartbeat import beat
from scheduler.leader import LeaderElector, make_lease

if TYPE_CHECKING:
    from scheduler.worker import ControllerLoop, SessionSummary

__all__ = ["schedule"]

_elector: LeaderElector | None = None
_controllers: ControllerLoop | None = None
# One cycle at a time in this process: the beat's task and the leader's own loop may meet.
_cycle_lock = threading.Lock()
_last_cycle = 0.0


def _process_elector() -> LeaderElector:
    """Start this process's election, and its controllers' loop, at its first task (whatever the
    pool, that process runs the tasks)."""
    global _elector, _controllers
    if _elector is None:
        # Imported late: Celery imports task modules before Django's apps are ready.
        from scheduler.worker import ControllerLoop

        lease = make_lease()

        def heartbeat(leading: bool) -> None:
            beat(lease.holder, leading=leading, mode="celery")

        _elector = LeaderElector(lease, while_leading=_catch_up, heartbeat=heartbeat).start()
        _controllers = ControllerLoop(_elector)
        _controllers.start()
    return _elector


def _cycle(elector: LeaderElector) -> SessionSummary | None:
    """Run one cycle if this process leads and none is running here; None otherwise."""
    global _last_cycle
    # Celery imports task modules before Django's apps are ready; the worker imports models.
    from scheduler.worker import run_leader_cycle

    if not _cycle_lock.acquire(blocking=False):
        return None
    try:
        summary = run_leader_cycle(elector, reconcile=_controllers is None)
        if summary is not None:
            _last_cycle = time.monotonic()
        return summary
    finally:
        _cycle_lock.release()


def _catch_up() -> None:
    """The leader's own beat: a cycle when the beat's tasks went elsewhere for a while.

    Celery hands each beat task to whichever worker is free, so the leader may get only the
    kubelet's ticks for a stretch (two workers can fall into step with the beat's two tasks);
    Volcano's leader runs its loop itself, and so does ours when no task asked it to.
    """
    # Imported late for the same reason as in _cycle.
    from scheduler.worker import schedule_period

    if _elector is not None and time.monotonic() - _last_cycle > 1.5 * schedule_period():
        close_old_connections()
        _cycle(_elector)


@worker_shutdown.connect
@worker_process_shutdown.connect
def _give_up_lease(**kwargs: object) -> None:
    """Release the lease on a clean shutdown, so the standby need not wait for it to expire
    (the controllers' pass in progress ends first)."""
    if _controllers is not None:
        _controllers.stop()
    if _elector is not None:
        _elector.release()


@shared_task(name="scheduler.tasks.schedule", ignore_result=True)
def schedule() -> str:
    """Run one scheduling cycle if this worker leads; say what happened."""
    elector = _process_elector()
    summary = _cycle(elector)
    if summary is None:
        return "standby" if not elector.acquire() else "busy"
    return summary.error or "ran"
