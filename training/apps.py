"""Django's registration of the training app: Kubeflow's PyTorchJob, TFJob and MPIJob."""

from __future__ import annotations

from django.apps import AppConfig

from kube import registry


class TrainingConfig(AppConfig):
    """The Kubeflow training operator's kinds and their controller."""

    name = "training"
    verbose_name = "Training (kubeflow.org)"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Register the kinds and the training operator's controller (``kube.registry``)."""
        register_kinds()
        register_controllers()


def register_kinds() -> None:
    """Serve PyTorchJob, TFJob and MPIJob: discovery names, printer columns, access rules."""
    # Imported once the apps are ready: the kinds import the models.
    from training.api import kinds

    kinds.register()


def register_controllers() -> None:
    """Have the scheduler worker run the training operator each cycle, after the job controller
    (the training jobs' PodGroups and pods are reconciled once the VolcanoJobs' are)."""
    # Imported once the apps are ready: the controller imports the models.
    from training.controller import reconcile_training_jobs

    registry.add_controller(registry.Controller("training", reconcile_training_jobs, order=20))
