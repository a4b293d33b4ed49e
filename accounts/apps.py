"""The accounts app: tokens, grants and the audit log (signal receivers connect here)."""

from __future__ import annotations

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Registers the audit receivers on the models operators change."""

    name = "accounts"
    label = "accounts"
    verbose_name = "Accounts and audit"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Connect the audit receivers."""
        from accounts import audit

        audit.connect()
