"""Validation of volcano-scheduler.conf text for the Django side (model clean, apply).

The engine's parser (``scheduler.engine.load_conf``) is the authority; until it
is importable, the text is at least checked to be a YAML mapping with
``actions`` and ``tiers``, so nothing obviously broken becomes active.
"""

from __future__ import annotations

import yaml

from scheduler.engine.errors import EngineError

__all__ = ["conf_text_error"]


def conf_text_error(text: str) -> str:
    """Return what is wrong with the conf ``text`` (``"field: message"``), or ``""``."""
    try:
        from scheduler.engine import load_conf  # type: ignore[attr-defined]
    except ImportError:
        load_conf = None
    if load_conf is not None:
        try:
            load_conf(text)
        except EngineError as exc:
            return str(exc)
        return ""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        return f"not valid YAML: {exc}"
    if not isinstance(data, dict):
        return "expected a mapping with actions and tiers"
    if not isinstance(data.get("actions"), str):
        return 'actions: expected a string such as "enqueue, allocate, backfill"'
    if not isinstance(data.get("tiers"), list):
        return "tiers: expected a list of tiers"
    return ""
