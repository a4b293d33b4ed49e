"""The kube app: owns the change stream table and connects its signal receivers."""

from __future__ import annotations

from django.apps import AppConfig


class KubeConfig(AppConfig):
    """Registers the receivers that write one change event per object write."""

    name = "kube"
    label = "kube"
    verbose_name = "Kubernetes API"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Connect the change-stream receivers (module import registers them)."""
        from kube import changes, garbage, lock_order

        changes.connect()
        garbage.connect()
        lock_order.install()
