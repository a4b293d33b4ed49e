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
        """Register the kubelet's API names, the simulated runtime and exporter (``kube.registry``)."""
        register_access()
        register_runtimes()
        register_exporter()


def register_access() -> None:
    """Say who may read pods' logs and inject faults; list metrics.k8s.io in discovery."""
    # Imported once the apps are ready: the API modules import the models.
    from kubelet.api import access

    access.register()
    from kubelet.api import numatopologies  # the same: its kind's entry reads the model

    numatopologies.register()


def register_runtimes() -> None:
    """Have the embedded scheduler loop tick the simulated kubelet each period (the distributed
    mode ticks it from Celery beat instead: ``kubelet.tasks.runtime_tick``)."""
    # Imported once the apps are ready: the runtime imports the models.
    from kubelet.runtime import tick

    registry.add_runtime("kubelet.simulated", tick)


def register_exporter() -> None:
    """Have the worker run the simulated device plugins and resource exporter before each
    session (``kubelet.exporter``): knobbed nodes register their GPUs and publish Numatopology."""
    # Imported once the apps are ready: the exporter imports the models.
    from kubelet.exporter import reconcile

    registry.add_controller(registry.Controller("kubelet.exporter", reconcile, order=5))
