"""The history in the admin: read-only (the worker writes and prunes it)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from monitoring.models import HistorySample


@admin.register(HistorySample)
class HistorySampleAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Samples by time and resolution; their figures are for charts, not for editing."""

    list_display = ("at", "resolution", "samples", "stored_bytes")
    list_filter = ("resolution",)
    date_hierarchy = "at"
    exclude = ("data",)

    @admin.display(description="stored bytes")
    def stored_bytes(self, obj: HistorySample) -> int:
        """Return the size of the packed figures."""
        return len(obj.data)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
