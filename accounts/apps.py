"""The accounts app: tokens, grants and the audit log (signal receivers connect here).

It also gives the kernel its access control (``accounts.api.access``): the API server's views
authenticate and authorise through it without importing this app.
"""

from __future__ import annotations

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Registers the audit receivers and the API server's access control."""

    name = "accounts"
    label = "accounts"
    verbose_name = "Accounts and audit"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Connect the audit receivers; hand the kernel its access control."""
        # Both modules import this app's models, which load only once the apps are ready.
        from accounts import audit, language
        from accounts.api import access

        audit.connect()
        language.connect()
        access.register()
