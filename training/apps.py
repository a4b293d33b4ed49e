"""Django's registration of the training app: Kubeflow's PyTorchJob, TFJob and MPIJob."""

from __future__ import annotations

from django.apps import AppConfig


class TrainingConfig(AppConfig):
    """The Kubeflow training operator's kinds and their controller."""

    name = "training"
    verbose_name = "Training (kubeflow.org)"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Register with the kernel."""
        self.register()

    def register(self) -> None:
        """Register this app's kinds with the kernel (``training.api.kinds``)."""
        # Models load only once the apps are ready: the registration module imports them.
        from training.api import kinds

        kinds.register()
