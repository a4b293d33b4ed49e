"""The configuration the scheduler runs now: the active version, parsed once per version."""

from __future__ import annotations

from scheduler.engine import load_conf
from scheduler.engine.conf import SchedulerConf
from scheduler.models import SchedulerConfiguration

__all__ = ["active_conf"]

# The parsed active version, keyed by (pk, text): parsed once per version, not per session.
_parsed: dict[tuple[int, str], SchedulerConf] = {}


def active_conf() -> tuple[SchedulerConfiguration | None, SchedulerConf]:
    """Return the active version and its parsed conf (Volcano's default without one)."""
    row = SchedulerConfiguration.objects.filter(is_active=True).first()
    if row is None:
        return None, load_conf(None)
    key = (row.pk, row.text)
    if key not in _parsed:
        _parsed.clear()
        _parsed[key] = load_conf(row.text)
    return row, _parsed[key]
