"""Admission of Kubeflow training jobs: the training operator's validation, plus Volcano's queue.

The operator's validating webhooks (``kubeflow.org/v1``, the last v1 release line) refuse,
each at its field path (``spec.pytorchReplicaSpecs[Worker].replicas``) with its message:
a name that is not a DNS-1035 label; no replica specs; an unknown replica type; a replica
without containers, with a container without an image, or without the framework's
container (``pytorch``, ``tensorflow``); a PyTorch Master whose replicas are not 1 and any
other PyTorch replica type below 1 (``Worker.replicas: 0``); an elastic PyTorchJob without
Workers, or with both ``elasticPolicy.nProcPerNode`` and ``nprocPerNode``; a TFJob with
more than one Chief or Master role; a ``runPolicy.managedBy`` it does not know, or changed.
The MPIJob controller's own validation wants exactly one Launcher.

This server adds what it cannot run: a negative replica count, more than one replica of a
Chief/Evaluator, a restartPolicy or cleanPodPolicy it does not know, a PyTorchJob whose
Workers have no Master (unless elastic), run policies out of range. With Volcano as the
gang scheduler the job's PodGroup goes into the queue its ``schedulingPolicy`` names, which
must exist and be Open (as for a VolcanoJob), and its priority class must exist.
"""

from __future__ import annotations

import re
from typing import Any

from core.models import PriorityClass
from kube.admission_causes import Causes
from queues.models import Queue, QueueState
from training.frameworks import CLEAN_POD_POLICIES, RESTART_POLICIES, Framework
from training.models import TrainingJob

__all__ = ["MANAGED_BY", "admit_training_job", "validate_training_job"]

# The controllers ``runPolicy.managedBy`` may name: the operator, or Kueue's MultiKueue.
MANAGED_BY = ("kubeflow.org/training-operator", "kueue.x-k8s.io/multikueue")
_DNS1035 = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
_DNS1035_MESSAGE = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with "
    "an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)


def admit_training_job(framework: Framework, job: TrainingJob, *, old: Any | None) -> None:
    """Raise ``AdmissionError`` naming every rule ``job`` breaks."""
    causes = validate_training_job(framework, job)
    if isinstance(old, TrainingJob):
        before = (old.spec.get("runPolicy") or {}).get("managedBy")
        if (job.spec.get("runPolicy") or {}).get("managedBy") != before:
            causes.invalid("spec.runPolicy.managedBy", "field is immutable")
    causes.raise_if_any(kind=framework.kind, name=job.name)


def validate_training_job(framework: Framework, job: TrainingJob) -> Causes:
    """Return every violation of the training operator's and Volcano's rules."""
    causes = Causes()
    _validate_name(job.name, causes)
    spec = job.spec
    replicas: dict[str, Any] = spec.get(framework.replica_key) or {}
    at = f"spec.{framework.replica_key}"
    if not replicas:
        causes.required(at, "must be required")
    for name, replica in replicas.items():
        _validate_replica(framework, f"{at}[{name}]", name, replica, causes)
    _validate_shape(framework, spec, replicas, at, causes)
    _validate_run_policy(
        spec.get("runPolicy") or {}, sum(_count(r) for r in replicas.values()), causes
    )
    return causes


def _validate_name(name: str, causes: Causes) -> None:
    """The operator's pods and Services are named after the job: it must be a DNS-1035 label."""
    problems = []
    if len(name) > 63:
        problems.append("must be no more than 63 characters")
    if not _DNS1035.fullmatch(name):
        problems.append(_DNS1035_MESSAGE)
    if problems:
        causes.invalid("metadata.name", f"should match: {','.join(problems)}")


def _count(replica: dict[str, Any]) -> int:
    return max(int(replica.get("replicas") or 0), 0)


def _validate_replica(
    framework: Framework, at: str, name: str, replica: dict[str, Any], causes: Causes
) -> None:
    if name not in framework.replica_types:
        causes.not_supported(at, name, framework.replica_types)
        return
    _validate_replicas(framework, f"{at}.replicas", name, int(replica.get("replicas") or 0), causes)
    policy = replica.get("restartPolicy")
    if policy not in RESTART_POLICIES:
        causes.not_supported(f"{at}.restartPolicy", policy, RESTART_POLICIES)
    containers = ((replica.get("template") or {}).get("spec") or {}).get("containers") or []
    path = f"{at}.template.spec.containers"
    if not containers:
        causes.required(path, "must be specified")
    for index, container in enumerate(containers):
        if not container.get("image"):
            causes.required(f"{path}[{index}].image", "must be required")
    if framework.container and not any(c.get("name") == framework.container for c in containers):
        causes.required(path, f"must have at least one container with name {framework.container}")


def _validate_replicas(
    framework: Framework, at: str, name: str, count: int, causes: Causes
) -> None:
    """The replica count: the operator's rules for PyTorch and MPI, and no negative one."""
    if framework.kind == "PyTorchJob" and name == "Master":
        if count != 1:
            causes.forbidden(at, "must be 1")
    elif framework.kind == "PyTorchJob":
        if count < 1:
            causes.forbidden(at, "must be at least 1")
    elif framework.kind == "MPIJob" and name == "Launcher":
        if count != 1:
            causes.forbidden(at, "There must be only 1 launcher replica")
    elif count < 0:
        causes.invalid(at, f"must be greater than or equal to 0, got {count}")
    elif name in framework.single and count > 1:
        causes.invalid(at, f"there must be only 1 {name} replica, got {count}")


def _validate_shape(
    framework: Framework, spec: dict[str, Any], replicas: dict[str, Any], at: str, causes: Causes
) -> None:
    """The kind's own rules about which replica types go together."""
    if framework.kind == "PyTorchJob":
        elastic = spec.get("elasticPolicy")
        if "Worker" in replicas and "Master" not in replicas and not elastic:
            causes.required(f"{at}[Master]", "a PyTorchJob with Workers needs a Master replica")
        if elastic is not None and "Worker" not in replicas:
            causes.required(f"{at}[Worker]", "must be configured if elastic policy is used")
        if (elastic or {}).get("nProcPerNode") is not None and spec.get("nprocPerNode") is not None:
            causes.forbidden(
                "spec.elasticPolicy.nProcPerNode", "must not be used with spec.nprocPerNode"
            )
    elif framework.kind == "TFJob":
        if "Chief" in replicas and "Master" in replicas:
            causes.forbidden(at, "must not have more than 1 Chief or Master role")
    elif framework.kind == "MPIJob":
        if "Launcher" not in replicas:
            causes.required(
                f"{at}[Launcher]", "MPIReplicaSpec is not valid: Master ReplicaSpec must be present"
            )
        slots = spec.get("slotsPerWorker")
        if slots is not None and (
            not isinstance(slots, int) or isinstance(slots, bool) or slots < 1
        ):
            causes.invalid("spec.slotsPerWorker", f"must be a positive integer, got {slots!r}")


def _validate_run_policy(run: dict[str, Any], total: int, causes: Causes) -> None:
    at = "spec.runPolicy"
    managed_by = run.get("managedBy")
    if managed_by is not None and managed_by not in MANAGED_BY:
        causes.not_supported(f"{at}.managedBy", managed_by, MANAGED_BY)
    clean = run.get("cleanPodPolicy")
    if clean not in CLEAN_POD_POLICIES:
        causes.not_supported(f"{at}.cleanPodPolicy", clean, CLEAN_POD_POLICIES)
    for key in ("ttlSecondsAfterFinished", "activeDeadlineSeconds", "backoffLimit"):
        value = run.get(key)
        if value is not None and value < 0:
            causes.invalid(f"{at}.{key}", f"must be greater than or equal to 0, got {value}")
    scheduling = run.get("schedulingPolicy") or {}
    at = f"{at}.schedulingPolicy"
    minimum = scheduling.get("minAvailable")
    if minimum is not None and not 0 < minimum <= max(total, 1):
        causes.invalid(
            f"{at}.minAvailable", f"must be between 1 and the {total} replicas, got {minimum}"
        )
    timeout = scheduling.get("scheduleTimeoutSeconds")
    if timeout is not None and timeout < 0:
        causes.invalid(f"{at}.scheduleTimeoutSeconds", f"must be >= 0, got {timeout}")
    queue_name = scheduling.get("queue") or "default"
    queue = Queue.objects.filter(name=queue_name).first()
    if queue is None:
        causes.not_found(f"{at}.queue", f"unable to find queue: {queue_name}")
    elif queue.state != QueueState.OPEN:
        causes.forbidden(
            f"{at}.queue",
            f"can only submit to a queue with state `Open`, queue `{queue_name}` is `{queue.state}`",
        )
    elif Queue.objects.filter(parent=queue_name).exists():
        causes.forbidden(
            f"{at}.queue", f"can only submit to a leaf queue, `{queue_name}` has children"
        )
    priority = scheduling.get("priorityClass")
    if priority and not PriorityClass.objects.filter(name=priority).exists():
        causes.not_found(f"{at}.priorityClass", f"unable to find priority class: {priority}")
