"""Validation of volcano-scheduler.conf text for the Django side (model clean, manifests).

The engine's parser is the one authority on what a conf may say (known actions
and plugins, argument types); this module only turns its verdict into text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apis.errors import EngineError
from scheduler.engine import load_conf
from scheduler.engine.conf import SchedulerConf

if TYPE_CHECKING:
    from scheduler.models import SchedulerConfiguration

__all__ = ["active_conf", "conf_text_error"]

# The parsed active version, keyed by (pk, text): parsed once per version, not per session.
_parsed: dict[tuple[int, str], SchedulerConf] = {}


def conf_text_error(text: str) -> str:
    """Return what is wrong with the conf ``text`` (``"field: message"``), or ``""``."""
    try:
        load_conf(text)
    except EngineError as exc:
        return str(exc)
    return ""


def active_conf() -> tuple[SchedulerConfiguration | None, SchedulerConf]:
    """Return the active version and its parsed conf (Volcano's default without one)."""
    from scheduler.models import SchedulerConfiguration

    row = SchedulerConfiguration.objects.filter(is_active=True).first()
    if row is None:
        return None, load_conf(None)
    key = (row.pk, row.text)
    if key not in _parsed:
        _parsed.clear()
        _parsed[key] = load_conf(row.text)
    return row, _parsed[key]
