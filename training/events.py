"""The events the training operator records on a PyTorchJob, TFJob or MPIJob.

``kubectl describe pytorchjob`` lists them. Reasons, types and messages are the operator's
(``kubeflow.org/v1``, training-operator v1.8): its pod control records
``SuccessfulCreatePod`` "Created pod: <name>" and ``SuccessfulDeletePod`` "Deleted pod:
<name>"; its reconciler ``ExitedWithCode`` for a replica's finished container, and
``<Kind>Restarting`` (Warning), ``<Kind>Succeeded`` and ``<Kind>Failed`` with the message of
the condition they set. The MPIJob controller is its own: "Created worker pod: <name>" for a
worker, and ``MPIJobRunning`` "launcher pod created success: <name>" for the launcher.

The reporting component is the operator's controller of the kind (``pytorchjob-controller``).
"""

from __future__ import annotations

import datetime as dt

from core.events import record_event
from core.models import EventType
from training.frameworks import Framework
from training.models import TrainingJob

__all__ = [
    "EXITED_WITH_CODE",
    "SUCCESSFUL_CREATE_POD",
    "SUCCESSFUL_CREATE_SERVICE",
    "SUCCESSFUL_DELETE_POD",
    "pod_created",
    "pod_deleted",
    "pod_exited",
    "record",
    "service_created",
]

SUCCESSFUL_CREATE_POD = "SuccessfulCreatePod"
SUCCESSFUL_DELETE_POD = "SuccessfulDeletePod"
# Recorded by the operator's service control once a replica's Service exists ("Created
# service: <name>"); kept here so the controller's Service step uses the operator's reason.
SUCCESSFUL_CREATE_SERVICE = "SuccessfulCreateService"
EXITED_WITH_CODE = "ExitedWithCode"


def record(
    framework: Framework,
    job: TrainingJob,
    reason: str,
    message: str,
    now: dt.datetime,
    *,
    warning: bool = False,
) -> None:
    """Record an event about ``job`` as its kind's controller of the operator does."""
    record_event(
        job,
        kind=framework.kind,
        reason=reason,
        message=message,
        now=now,
        event_type=EventType.WARNING if warning else EventType.NORMAL,
        source=f"{framework.kind.lower()}-controller",
    )


def pod_created(
    framework: Framework, job: TrainingJob, replica_type: str, pod: str, now: dt.datetime
) -> None:
    """Record that replica pod ``pod`` was created."""
    if framework.kind == "MPIJob" and replica_type == "Launcher":
        record(framework, job, "MPIJobRunning", f"launcher pod created success: {pod}", now)
    elif framework.kind == "MPIJob":
        record(framework, job, SUCCESSFUL_CREATE_POD, f"Created worker pod: {pod}", now)
    else:
        record(framework, job, SUCCESSFUL_CREATE_POD, f"Created pod: {pod}", now)


def service_created(framework: Framework, job: TrainingJob, service: str, now: dt.datetime) -> None:
    """Record that the replica's headless Service ``service`` was created."""
    record(framework, job, SUCCESSFUL_CREATE_SERVICE, f"Created service: {service}", now)


def pod_deleted(framework: Framework, job: TrainingJob, pod: str, now: dt.datetime) -> None:
    """Record that the operator deleted pod ``pod`` (a restart, or cleanPodPolicy)."""
    record(framework, job, SUCCESSFUL_DELETE_POD, f"Deleted pod: {pod}", now)


def pod_exited(
    framework: Framework, job: TrainingJob, namespace: str, pod: str, code: int, now: dt.datetime
) -> None:
    """Record that the framework's container of ``pod`` exited with ``code``."""
    record(framework, job, EXITED_WITH_CODE, f"Pod: {namespace}.{pod} exited with code {code}", now)
