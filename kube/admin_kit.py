"""What every kind's admin page shares: kubectl's AGE column, the metadata shown read-only,
and the read-only admin of records."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils import timezone
from django.utils.timesince import timesince

__all__ = ["META_FIELDS", "RecordAdmin", "age"]

META_FIELDS = ("uid", "resource_version", "created_at")


def age(created_at: Any) -> str:
    """Return kubectl's AGE column for a creation time."""
    if created_at is None:
        return ""
    return timesince(created_at, timezone.now(), depth=1)


class RecordAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """The admin of a record something else writes (the audit log, session records): read-only.

    Nobody adds, changes or deletes one by hand; retention prunes them.
    """

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
