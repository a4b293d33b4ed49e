"""What differs between PyTorchJob, TFJob and MPIJob: replica types, container, port, defaults.

The values are the training operator's (``kubeflow.org/v1``): the replica specs' key, the
replica types it accepts, the container it wires (``pytorch``, ``tensorflow``), the port
it opens on it and that port's default, the replica restartPolicy and cleanPodPolicy it
defaults to, and which replica type's success makes the job succeed.
"""

from __future__ import annotations

from dataclasses import dataclass

from training.models import MPIJob, PyTorchJob, TFJob, TrainingJob

__all__ = ["FRAMEWORKS", "Framework", "framework_of"]

GROUP = "kubeflow.org"
VERSION = "v1"
CLEAN_POD_POLICIES = ("None", "Running", "All")
RESTART_POLICIES = ("Always", "OnFailure", "Never", "ExitCode")


@dataclass(frozen=True)
class Framework:
    """One Kubeflow kind as the training operator treats it."""

    kind: str  # "PyTorchJob"
    plural: str  # "pytorchjobs"
    model: type[TrainingJob]
    replica_key: str  # "pytorchReplicaSpecs"
    replica_types: tuple[str, ...]  # in the operator's order: pods are created in this order
    container: str  # the container the operator wires ("" for MPI: every container)
    port_name: str
    default_port: int
    default_restart_policy: str
    default_clean_pod_policy: str
    # The replica types whose success ends the job, first present wins.
    leaders: tuple[str, ...]
    # Replica types named ``<job>-<type>`` without an index (MPI's launcher).
    unindexed: tuple[str, ...] = ()
    # Replica types that may have at most one replica.
    single: tuple[str, ...] = ()
    # Keys of ``spec`` besides runPolicy and the replica specs.
    extra_spec: tuple[str, ...] = ()

    @property
    def api_version(self) -> str:
        """Return ``kubeflow.org/v1``."""
        return f"{GROUP}/{VERSION}"

    def normalise(self, replica_type: str) -> str | None:
        """Return the operator's spelling of ``replica_type`` (case-insensitive), or None."""
        for known in self.replica_types:
            if known.lower() == replica_type.lower():
                return known
        return None

    def pod_name(self, job: str, replica_type: str, index: int) -> str:
        """Return the operator's pod name: ``<job>-<type>-<index>`` (``<job>-launcher``)."""
        if replica_type in self.unindexed:
            return f"{job}-{replica_type.lower()}"
        return f"{job}-{replica_type.lower()}-{index}"


PYTORCH = Framework(
    kind="PyTorchJob",
    plural="pytorchjobs",
    model=PyTorchJob,
    replica_key="pytorchReplicaSpecs",
    replica_types=("Master", "Worker"),
    container="pytorch",
    port_name="pytorchjob-port",
    default_port=23456,
    default_restart_policy="OnFailure",
    default_clean_pod_policy="None",
    leaders=("Master", "Worker"),
    single=("Master",),
    extra_spec=("elasticPolicy", "nprocPerNode"),
)
TENSORFLOW = Framework(
    kind="TFJob",
    plural="tfjobs",
    model=TFJob,
    replica_key="tfReplicaSpecs",
    replica_types=("Chief", "Master", "PS", "Worker", "Evaluator"),
    container="tensorflow",
    port_name="tfjob-port",
    default_port=2222,
    default_restart_policy="Never",
    default_clean_pod_policy="Running",
    leaders=("Chief", "Master", "Worker"),
    single=("Chief", "Master", "Evaluator"),
    extra_spec=("successPolicy", "enableDynamicWorker"),
)
MPI = Framework(
    kind="MPIJob",
    plural="mpijobs",
    model=MPIJob,
    replica_key="mpiReplicaSpecs",
    replica_types=("Launcher", "Worker"),
    container="",
    port_name="",
    default_port=0,
    default_restart_policy="Never",
    default_clean_pod_policy="None",
    leaders=("Launcher",),
    unindexed=("Launcher",),
    single=("Launcher",),
    extra_spec=("slotsPerWorker", "mainContainer", "cleanPodPolicy"),
)
FRAMEWORKS: dict[str, Framework] = {f.kind: f for f in (PYTORCH, TENSORFLOW, MPI)}


def framework_of(job: TrainingJob) -> Framework:
    """Return the framework of a stored or loaded job (by its model)."""
    for framework in FRAMEWORKS.values():
        if isinstance(job, framework.model):
            return framework
    raise TypeError(f"not a training job: {type(job).__name__}")
