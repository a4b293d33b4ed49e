"""The kube app: owns the change stream table and connects its signal receivers.

The receivers reach each kind's model when its app registers it (``kube.registry``), in
whatever order the apps become ready.
"""

from __future__ import annotations

from django.apps import AppConfig


class KubeConfig(AppConfig):
    """Registers the receivers that write one change event per object write."""

    name = "kube"
    label = "kube"
    verbose_name = "Kubernetes API"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Connect the change-stream receivers to each served kind, as the apps register them."""
        # These modules import the kernel's models, which load only once the apps are ready.
        from kube import changes, garbage, lock_order

        changes.connect()
        garbage.connect()
        lock_order.install()
