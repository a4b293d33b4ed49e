"""Admin for tokens (admins issue and revoke them), namespace grants and the audit log."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from accounts.models import ApiToken, AuditEntry, NamespaceGrant
from accounts.services import token_create, token_revoke
from kube.admin_kit import RecordAdmin


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Issue a token for any user (shown once in a message) and revoke tokens."""

    list_display = ("name", "user", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("name", "user__username", "prefix")
    fields = ("user", "name", "prefix", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("prefix", "created_at", "last_used_at", "revoked_at")
    actions = ("revoke",)

    def save_model(self, request: HttpRequest, obj: ApiToken, form: Any, change: bool) -> None:
        """Issue new tokens through the service so only the digest is stored."""
        if change:
            super().save_model(request, obj, form, change)
            return
        row, token = token_create(user=obj.user, name=obj.name)
        obj.pk = row.pk
        messages.warning(
            request, f"Token for {obj.user}: {token} (copy it now; it is not shown again)"
        )

    @admin.action(description="Revoke the selected tokens")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        """Revoke each selected token."""
        for token in queryset:
            token_revoke(token=token)


@admin.register(NamespaceGrant)
class NamespaceGrantAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Grant a user or a group a namespace."""

    list_display = ("namespace", "user", "group")
    list_filter = ("namespace",)


@admin.register(AuditEntry)
class AuditEntryAdmin(RecordAdmin):
    """Read-only audit log."""

    list_display = ("created_at", "actor_name", "action", "kind", "name")
    list_filter = ("kind", "action")
    search_fields = ("name", "actor_name")
