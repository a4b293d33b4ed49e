"""Django's registration of the kubelet app: the simulated node runtime."""

from __future__ import annotations

from django.apps import AppConfig


class KubeletConfig(AppConfig):
    """The simulated kubelet: containers, faults, logs and metrics.k8s.io."""

    name = "kubelet"
    verbose_name = "Kubelet (simulated)"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Register with the kernel."""
        self.register()

    def register(self) -> None:
        """Register this app's API names with the kernel (``kubelet.api.access``)."""
        # Models load only once the apps are ready: the registration module imports them.
        from kubelet.api import access

        access.register()
