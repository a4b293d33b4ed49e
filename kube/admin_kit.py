"""What every kind's admin page shares: kubectl's AGE column and the metadata shown read-only."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from django.utils.timesince import timesince

__all__ = ["META_FIELDS", "age"]

META_FIELDS = ("uid", "resource_version", "created_at")


def age(created_at: Any) -> str:
    """Return kubectl's AGE column for a creation time."""
    if created_at is None:
        return ""
    return timesince(created_at, timezone.now(), depth=1)
