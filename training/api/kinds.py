"""Kubeflow's PyTorchJob, TFJob and MPIJob as the API server serves them, registered with the
kernel (``register``).

Printer columns are the training operator's CRDs': State (the type of the job's last
condition) and Age. The three share one API name for roles, ``trainingjobs``: submitted like
VolcanoJobs, with ``/status`` the controller's (operators may repair it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accounts.roles import EVERYONE, OPERATORS, SUBMITTERS
from kube import registry
from kube.registry import KUBE_AGE, AccessRule, Column, Entry, Invalid
from kube.resources import Resource
from training.api.resources import MPIJOBS, PYTORCHJOBS, TFJOBS
from training.frameworks import FRAMEWORKS, Framework

__all__ = ["register"]


def _example(framework: Framework, replica_type: str) -> Mapping[str, Any]:
    """Return a job of one ``replica_type`` replica, in the ``default`` queue."""
    container = {
        "name": framework.container or "main",
        "image": "busybox",
        "resources": {"requests": {"cpu": "1"}},
    }
    replica = {"replicas": 1, "template": {"spec": {"containers": [container]}}}
    return {
        "apiVersion": framework.api_version,
        "kind": framework.kind,
        "metadata": {"name": f"{framework.kind.lower()}-1"},
        "spec": {
            "runPolicy": {"schedulingPolicy": {"queue": "default"}},
            framework.replica_key: {replica_type: replica},
        },
    }


def _entry(resource: Resource, apply_order: int, replica_type: str) -> Entry:
    framework = FRAMEWORKS[resource.kind]
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
        example=_example(framework, replica_type),
        invalid=Invalid(
            f"spec.{framework.replica_key}.{replica_type}.replicas",
            -1,
            # the operator's webhook names a replica type in brackets
            field=f"spec.{framework.replica_key}[{replica_type}].replicas",
        ),
    )


# After Volcano's jobs (50), before the PodGroups (70): see ``Entry.apply_order``.
TRAINING_ENTRIES = (
    _entry(PYTORCHJOBS, 60, "Master"),
    _entry(TFJOBS, 61, "Worker"),
    _entry(MPIJOBS, 62, "Launcher"),
)


def register() -> None:
    """Serve the three Kubeflow kinds (``TrainingConfig.ready``)."""
    for entry in TRAINING_ENTRIES:
        registry.register_kind(entry, access=AccessRule(EVERYONE, SUBMITTERS, namespaced=True))
    registry.register_access(
        "trainingjobs/status", AccessRule(EVERYONE, OPERATORS, namespaced=True)
    )
