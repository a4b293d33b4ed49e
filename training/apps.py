"""Django's registration of the training app: Kubeflow's PyTorchJob, TFJob and MPIJob."""

from __future__ import annotations

from django.apps import AppConfig


class TrainingConfig(AppConfig):
    """The Kubeflow training operator's kinds and their controller."""

    name = "training"
    verbose_name = "Training (kubeflow.org)"
    default_auto_field = "django.db.models.BigAutoField"
