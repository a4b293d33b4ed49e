"""Volcano's default scheduler configuration (the Helm chart's volcano-scheduler.conf).

Kept in the repository (the running system reads nothing outside it); the data
migration that creates the first active SchedulerConfiguration stores this text.
"""

from __future__ import annotations

__all__ = ["DEFAULT_SCHEDULER_CONF"]

DEFAULT_SCHEDULER_CONF = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
"""
