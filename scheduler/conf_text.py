"""Validation of volcano-scheduler.conf text for the Django side (model clean, manifests).

The engine's parser is the one authority on what a conf may say (known actions
and plugins, argument types); this module only turns its verdict into text.
"""

from __future__ import annotations

from apis.errors import EngineError
from scheduler.engine import load_conf

__all__ = ["conf_text_error"]


def conf_text_error(text: str) -> str:
    """Return what is wrong with the conf ``text`` (``"field: message"``), or ``""``."""
    try:
        load_conf(text)
    except EngineError as exc:
        return str(exc)
    return ""
