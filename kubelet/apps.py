"""Django's registration of the kubelet app: the simulated node runtime."""

from __future__ import annotations

from django.apps import AppConfig

from kube import registry


class KubeletConfig(AppConfig):
    """The simulated kubelet: containers, faults, logs and metrics.k8s.io."""

    name = "kubelet"
    verbose_name = "Kubelet (simulated)"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Register the simulated runtime with the worker (``kube.registry``)."""
        register_runtimes()


def register_runtimes() -> None:
    """Have the embedded scheduler loop tick the simulated kubelet each period (the distributed
    mode ticks it from Celery beat instead: ``kubelet.tasks.runtime_tick``)."""
    # Imported once the apps are ready: the runtime imports the models.
    from kubelet.runtime import tick

    registry.add_runtime("kubelet.simulated", tick)
