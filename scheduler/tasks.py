"""Celery entry point (thin): the scheduling cycle.

Celery beat sends it (and the kubelet's tick, ``kubelet/tasks.py``) every
``VOLCANO_SCHEDULE_PERIOD`` (``volcano_site/celery.py``). Any worker may receive ``schedule``; only the one that takes the lease runs the cycle, and it gives the lease
back at the end, so two workers never run sessions at once and a worker killed mid-cycle is
replaced when its lease expires (``VOLCANO_LEADER_TTL``, default 5 s).
"""

from __future__ import annotations

from celery import shared_task

from scheduler.leader import Lease, make_lease

__all__ = ["schedule"]

_lease: Lease | None = None


def _process_lease() -> Lease:
    global _lease
    if _lease is None:
        _lease = make_lease()
    return _lease


@shared_task(name="scheduler.tasks.schedule", ignore_result=True)
def schedule() -> str:
    """Run one scheduling cycle if this worker gets the lease; say what happened."""
    # Celery imports task modules before Django's apps are ready; the worker imports models.
    from scheduler.worker import run_leader_cycle

    lease = _process_lease()
    summary = run_leader_cycle(lease)
    if summary is None:
        return "standby"
    lease.release()
    return summary.error or "ran"
