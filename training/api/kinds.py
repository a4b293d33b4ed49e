"""Kubeflow's PyTorchJob, TFJob and MPIJob as the API server serves them, registered with the
kernel (``register``).

Printer columns are the training operator's CRDs': State (the type of the job's last
condition) and Age. The three share one API name for roles, ``trainingjobs``: submitted like
VolcanoJobs, with ``/status`` the controller's (operators may repair it).
"""

from __future__ import annotations

from accounts.roles import EVERYONE, OPERATORS, SUBMITTERS
from kube import registry
from kube.registry import KUBE_AGE, AccessRule, Column, Entry
from kube.resources import Resource
from training.api.resources import MPIJOBS, PYTORCHJOBS, TFJOBS

__all__ = ["register"]


def _entry(resource: Resource, apply_order: int) -> Entry:
    return Entry(
        resource,
        resource.kind.lower(),
        columns=(
            Column(
                "State",
                "string",
                "@last-condition",
                description="The type of the job's last condition",
            ),
            KUBE_AGE,
        ),
        subresources=("status",),
        apply_order=apply_order,
    )


# After Volcano's jobs (50), before the PodGroups (70): see ``Entry.apply_order``.
TRAINING_ENTRIES = (_entry(PYTORCHJOBS, 60), _entry(TFJOBS, 61), _entry(MPIJOBS, 62))


def register() -> None:
    """Serve the three Kubeflow kinds (``TrainingConfig.ready``)."""
    for entry in TRAINING_ENTRIES:
        registry.register_kind(entry, access=AccessRule(EVERYONE, SUBMITTERS, namespaced=True))
    registry.register_access(
        "trainingjobs/status", AccessRule(EVERYONE, OPERATORS, namespaced=True)
    )
