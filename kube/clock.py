"""The simulated cluster's clock rate: one speed for every timer the cluster keeps.

The demo runs the simulated cluster faster than real time (``VOLCANO_SIM_SPEED``, e.g. 10:
a ten-minute ``sleep`` ends after one minute). Every duration the cluster's objects state
is simulated time, so every timer runs at that speed: a container's run and grace period
(the kubelet), a policy's ``timeout`` (the job controller's delayed actions),
``ttlSecondsAfterFinished`` and an Event's TTL. Timestamps stay wall time; a timer's due
time is its start plus the simulated duration divided by the speed, stored with the timer,
so a timer armed before a restart fires once after it, at the same moment.

A schedule (a CronJob's) is a calendar, not a duration: it is read on a simulated calendar
that runs ``speed`` times faster from an anchor the object keeps (its creation), so a
five-minute schedule fires every thirty wall seconds at speed 10, and a restart changes
nothing (``on_calendar`` and ``from_calendar``). At speed 1 the calendar is the wall clock.

What is not the cluster's stays on wall time: the scheduling period, leases, the watch
cache's retention and the session records the metrics chart.
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta

from django.conf import settings

__all__ = ["from_calendar", "on_calendar", "real", "speed"]


def speed() -> float:
    """Return how many simulated seconds pass per wall second (``VOLCANO_SIM_SPEED``, else 1)."""
    value = getattr(settings, "VOLCANO_SIM_SPEED", None) or os.environ.get("VOLCANO_SIM_SPEED")
    try:
        rate = float(str(value)) if value not in (None, "") else 1.0
    except ValueError:
        rate = 1.0
    return max(rate, 1e-6)


def real(simulated_seconds: float) -> timedelta:
    """Return how much wall time ``simulated_seconds`` of the cluster take at its speed."""
    return timedelta(seconds=simulated_seconds / speed())


def on_calendar(moment: datetime, anchor: datetime) -> datetime:
    """Return the simulated calendar's time at wall time ``moment`` (whole seconds).

    The calendar agrees with the wall clock at ``anchor`` and runs ``speed()`` times faster
    after it; at speed 1 it is ``moment`` itself.
    """
    rate = speed()
    if rate == 1.0:
        return moment
    calendar = anchor + (moment - anchor) * rate
    # Whole seconds of the calendar itself (not of the offset from an anchor with a fraction),
    # so that a calendar time read back from its wall time is that time exactly.
    return (calendar + timedelta(microseconds=500_000)).replace(microsecond=0)


def from_calendar(moment: datetime, anchor: datetime) -> datetime:
    """Return the wall time at which the simulated calendar reads ``moment``."""
    rate = speed()
    if rate == 1.0:
        return moment
    return anchor + (moment - anchor) / rate
