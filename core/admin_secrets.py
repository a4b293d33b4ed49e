"""Admin for Secrets: admins only, and the data masked (key names and sizes, never values).

Registered from ``jobs/admin.py``. Operators may use the admin for the cluster's
objects, but key material is for admins alone, whatever model permissions a
group was given; even they see only which files a Secret holds, not their bytes.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from accounts.roles import ADMIN, roles_of
from core.models import Secret

__all__ = ["SecretAdmin", "masked"]


def masked(secret: Secret) -> str:
    """Return the Secret's data as ``key (N bytes)`` per key: what is there, not what it says."""
    parts = []
    for key, value in sorted(secret.data.items()):
        try:
            size = len(base64.b64decode(str(value), validate=True))
        except (binascii.Error, ValueError):
            size = len(str(value))
        parts.append(f"{key} ({size} bytes)")
    return ", ".join(parts) or "(empty)"


@admin.register(Secret)
class SecretAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Secrets by namespace and owner job; data shown masked, for admins only."""

    list_display = ("name", "namespace", "job", "type", "data_masked", "created_at")
    list_filter = ("type", "namespace")
    search_fields = ("name", "namespace", "job__name")
    list_select_related = ("job",)
    raw_id_fields = ("job",)

    @admin.display(description="data")
    def data_masked(self, secret: Secret) -> str:
        return masked(secret)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[Any]:
        if obj is None:  # adding: the values are typed in once, then never shown again
            return ["namespace", "name", "job", "type", "data", "labels", "annotations"]
        return ["namespace", "name", "job", "type", "data_masked", "labels", "annotations"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        if obj is None:
            return []
        return ["namespace", "name", "job", "type", "data_masked", "uid", "resource_version"]

    def _admin(self, request: HttpRequest) -> bool:
        return ADMIN in roles_of(request.user)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self._admin(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._admin(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return self._admin(request)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._admin(request)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._admin(request)
