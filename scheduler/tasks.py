"""Celery entry point (thin): the scheduling cycle.

Celery beat sends it (and the kubelet's tick, ``kubelet/tasks.py``) every
``VOLCANO_SCHEDULE_PERIOD`` (``volcano_site/celery.py``). Any worker may receive ``schedule``;
only the one that leads runs the cycle. Each worker process elects beside its tasks
(``scheduler.leader.LeaderElector``): the lease stays with its holder while it renews, a standby
answers "standby", and a killed leader is replaced once its lease expires
(``VOLCANO_LEADER_TTL``, Volcano's 15 s by default). The lease is given up when the worker
shuts down.
"""

from __future__ import annotations

from celery import shared_task
from celery.signals import worker_process_shutdown, worker_shutdown

from scheduler.leader import LeaderElector, make_lease

__all__ = ["schedule"]

_elector: LeaderElector | None = None


def _process_elector() -> LeaderElector:
    """Start this process's election at its first task (whatever the pool, it runs the tasks)."""
    global _elector
    if _elector is None:
        _elector = LeaderElector(make_lease()).start()
    return _elector


@worker_shutdown.connect
@worker_process_shutdown.connect
def _give_up_lease(**kwargs: object) -> None:
    """Release the lease on a clean shutdown, so the standby need not wait for it to expire."""
    if _elector is not None:
        _elector.release()


@shared_task(name="scheduler.tasks.schedule", ignore_result=True)
def schedule() -> str:
    """Run one scheduling cycle if this worker gets the lease; say what happened."""
    # Celery imports task modules before Django's apps are ready; the worker imports models.
    from scheduler.worker import run_leader_cycle

    summary = run_leader_cycle(_process_elector())
    if summary is None:
        return "standby"
    return summary.error or "ran"
