"""Template filters of the scheduler's health page: durations in words, around now."""

from __future__ import annotations

from datetime import datetime

from django import template
from django.utils import timezone

from scheduler.health import duration

__all__ = ["seconds", "since", "until"]

register = template.Library()


@register.filter
def seconds(value: float | None) -> str:
    """Return a number of seconds in words ("12 ms", "3 minutes"); "" for None."""
    return "" if value is None else duration(float(value))


@register.filter
def since(moment: datetime | None) -> str:
    """Return how long ago ``moment`` was, to the second ("4.2 s")."""
    if moment is None:
        return ""
    return duration(max((timezone.now() - moment).total_seconds(), 0.0))


@register.filter
def until(moment: datetime | None) -> str:
    """Return how long until ``moment`` ("" when it has passed)."""
    if moment is None:
        return ""
    left = (moment - timezone.now()).total_seconds()
    return duration(left) if left > 0 else ""
