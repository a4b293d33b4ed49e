"""Celery entry point (thin): the simulated kubelet's tick, sent by beat every period."""

from __future__ import annotations

from celery import shared_task

from kubelet.runtime import tick

__all__ = ["runtime_tick"]


@shared_task(name="kubelet.tasks.runtime_tick", ignore_result=True)
def runtime_tick() -> str:
    """Move the simulated pods one step (idempotent: conditional updates)."""
    return repr(tick())
