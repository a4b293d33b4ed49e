"""Admission of Kubeflow training jobs: the training operator's validation, plus Volcano's queue.

The operator refuses a job with no replica specs, an unknown replica type, a
negative replica count, a restartPolicy it does not know, a replica template
without the framework's container (``pytorch``, ``tensorflow``), more than one
Master/Chief/Evaluator/Launcher, a PyTorchJob whose Workers have no Master (unless
elastic), an MPIJob without a Launcher, and run policies out of range. With
Volcano as the gang scheduler the job's PodGroup goes into the queue its
``schedulingPolicy`` names, which must exist and be Open (as for a VolcanoJob), and
its priority class must exist. Every problem is named with its field path.
"""

from __future__ import annotations

from typing import Any

from core.models import PriorityClass
from kube.admission_causes import Causes
from queues.models import Queue, QueueState
from training.frameworks import CLEAN_POD_POLICIES, RESTART_POLICIES, Framework
from training.models import TrainingJob

__all__ = ["admit_training_job", "validate_training_job"]


def admit_training_job(framework: Framework, job: TrainingJob, *, old: Any | None) -> None:
    """Raise ``AdmissionError`` naming every rule ``job`` breaks."""
    validate_training_job(framework, job).raise_if_any(kind=framework.kind, name=job.name)


def validate_training_job(framework: Framework, job: TrainingJob) -> Causes:
    """Return every violation of the training operator's and Volcano's rules."""
    causes = Causes()
    spec = job.spec
    replicas: dict[str, Any] = spec.get(framework.replica_key) or {}
    at = f"spec.{framework.replica_key}"
    if not replicas:
        causes.required(at, f"{framework.kind} needs at least one replica spec")
    for name, replica in replicas.items():
        _validate_replica(framework, f"{at}.{name}", name, replica, causes)
    _validate_shape(framework, spec, replicas, at, causes)
    _validate_run_policy(
        spec.get("runPolicy") or {}, sum(_count(r) for r in replicas.values()), causes
    )
    return causes


def _count(replica: dict[str, Any]) -> int:
    return max(int(replica.get("replicas") or 0), 0)


def _validate_replica(
    framework: Framework, at: str, name: str, replica: dict[str, Any], causes: Causes
) -> None:
    if name not in framework.replica_types:
        causes.not_supported(at, name, framework.replica_types)
        return
    count = int(replica.get("replicas") or 0)
    if count < 0:
        causes.invalid(f"{at}.replicas", f"must be greater than or equal to 0, got {count}")
    elif name in framework.single and count > 1:
        causes.invalid(f"{at}.replicas", f"there must be only 1 {name} replica, got {count}")
    policy = replica.get("restartPolicy")
    if policy not in RESTART_POLICIES:
        causes.not_supported(f"{at}.restartPolicy", policy, RESTART_POLICIES)
    containers = ((replica.get("template") or {}).get("spec") or {}).get("containers") or []
    if framework.container and not any(c.get("name") == framework.container for c in containers):
        causes.required(
            f"{at}.template.spec.containers",
            f"there is no container named {framework.container} in {name}",
        )
    for index, container in enumerate(containers):
        if not container.get("image"):
            causes.required(f"{at}.template.spec.containers[{index}].image")


def _validate_shape(
    framework: Framework, spec: dict[str, Any], replicas: dict[str, Any], at: str, causes: Causes
) -> None:
    """The kind's own rules about which replica types go together."""
    if framework.kind == "PyTorchJob":
        if "Worker" in replicas and "Master" not in replicas and not spec.get("elasticPolicy"):
            causes.required(f"{at}.Master", "a PyTorchJob with Workers needs a Master replica")
    elif framework.kind == "TFJob":
        if "Chief" in replicas and "Master" in replicas:
            causes.forbidden(f"{at}.Master", "a TFJob has a Chief or a Master, not both")
    elif framework.kind == "MPIJob":
        if "Launcher" not in replicas:
            causes.required(f"{at}.Launcher", "an MPIJob needs a Launcher replica")
        slots = spec.get("slotsPerWorker")
        if slots is not None and (
            not isinstance(slots, int) or isinstance(slots, bool) or slots < 1
        ):
            causes.invalid("spec.slotsPerWorker", f"must be a positive integer, got {slots!r}")


def _validate_run_policy(run: dict[str, Any], total: int, causes: Causes) -> None:
    at = "spec.runPolicy"
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
