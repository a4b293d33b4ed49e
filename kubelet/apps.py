"""Django's registration of the kubelet app: the simulated node runtime."""

from __future__ import annotations

from django.apps import AppConfig


class KubeletConfig(AppConfig):
    """The simulated kubelet: containers, faults, logs and metrics.k8s.io."""

    name = "kubelet"
    verbose_name = "Kubelet (simulated)"
    default_auto_field = "django.db.models.BigAutoField"
