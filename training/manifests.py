"""``kubeflow.org/v1`` PyTorchJob, TFJob and MPIJob manifests ⇄ the training job models.

Reading checks the shape (every key known, pod templates as for any pod, quantities
parse) and fills in the training operator's defaults, so a dump shows what the
operator would store: replica types in its spelling (``master`` → ``Master``),
``replicas: 1``, the framework's ``restartPolicy`` and ``cleanPodPolicy``. Rules
that need more than one field, or the database (the queue, the priority class),
are admission's (``training.admission``), which names every bad field at once.
"""

from __future__ import annotations

from typing import Any, ClassVar

from apis.wire import Fields, Manifest, format_time
from core.manifests.pod_template import read_pod_template
from kube.manifest_kinds import Kind, Loaded
from training.frameworks import FRAMEWORKS, Framework
from training.models import TrainingJob

__all__ = ["MPIJobKind", "PyTorchJobKind", "TFJobKind", "TrainingJobKind", "kind_for"]

_SCHEDULING = ("minAvailable", "queue", "minResources", "priorityClass", "scheduleTimeoutSeconds")
_RUN_INTEGERS = ("ttlSecondsAfterFinished", "activeDeadlineSeconds", "backoffLimit")


def _integer(fields: Fields, key: str) -> int | None:
    """Return an integer (negative ones too: admission names them) or None when absent."""
    return fields.optional_integer(key)


def read_run_policy(framework: Framework, run: Fields) -> dict[str, Any]:
    """Return ``runPolicy`` checked for shape, with the default cleanPodPolicy."""
    policy: dict[str, Any] = {
        "cleanPodPolicy": run.string("cleanPodPolicy", framework.default_clean_pod_policy)
    }
    for key in _RUN_INTEGERS:
        if (value := _integer(run, key)) is not None:
            policy[key] = value
    if run.has("suspend"):
        policy["suspend"] = run.boolean("suspend", False)
    if run.has("managedBy"):
        policy["managedBy"] = run.string("managedBy")
    scheduling = run.obj("schedulingPolicy")
    if run.has("schedulingPolicy"):
        chosen: dict[str, Any] = {}
        for key in ("minAvailable", "scheduleTimeoutSeconds"):
            if (value := _integer(scheduling, key)) is not None:
                chosen[key] = value
        for key in ("queue", "priorityClass"):
            if scheduling.has(key):
                chosen[key] = scheduling.string(key)
        if scheduling.has("minResources"):
            scheduling.resources("minResources")  # quantities must parse
            chosen["minResources"] = scheduling.json("minResources", {})
        scheduling.done()
        policy["schedulingPolicy"] = chosen
    run.done()
    return policy


def read_replica_specs(framework: Framework, specs: Fields) -> dict[str, Any]:
    """Return the replica specs by type (the operator's spelling), with their defaults."""
    replicas: dict[str, Any] = {}
    for name in specs.names():
        replica = specs.obj(name)
        key = framework.normalise(name) or name  # unknown types stay, for admission to name
        count = _integer(replica, "replicas")
        replicas[key] = {
            "replicas": 1 if count is None else count,
            "restartPolicy": replica.string("restartPolicy", framework.default_restart_policy),
            "template": read_pod_template(replica.obj("template")),
        }
        replica.done()
    return replicas


class TrainingJobKind(Kind):
    """The shape the three Kubeflow kinds share; each subclass names its framework."""

    framework: ClassVar[Framework]
    spec_fields = ("spec", "queue", "priority_class_name")
    wire_paths: ClassVar[dict[str, str]] = {"name": "metadata.name"}

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        job: TrainingJob = loaded.instance
        framework = self.framework
        spec = doc.obj("spec")
        body: dict[str, Any] = {
            "runPolicy": read_run_policy(framework, spec.obj("runPolicy")),
            framework.replica_key: read_replica_specs(framework, spec.obj(framework.replica_key)),
        }
        for key in framework.extra_spec:
            if spec.has(key):
                body[key] = spec.json(key, None)
        spec.done()
        job.spec = body
        scheduling = body["runPolicy"].get("schedulingPolicy") or {}
        job.queue = scheduling.get("queue") or "default"
        job.priority_class_name = scheduling.get("priorityClass") or ""
        status = doc.obj("status")
        job.conditions = status.json("conditions", [])
        job.replica_statuses = status.json("replicaStatuses", {})
        job.start_time = status.time("startTime")
        job.completion_time = status.time("completionTime")
        job.last_reconcile_time = status.time("lastReconcileTime")
        status.done()

    def admit(self, loaded: Loaded, existing: Any | None) -> None:
        """Refuse what the training operator (and Volcano) would (``training.admission``)."""
        # Admission reads manifests with this kind: the two modules need each other.
        from training.admission import admit_training_job

        admit_training_job(self.framework, loaded.instance, old=existing)

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        job: TrainingJob = instance
        status: Manifest = {}
        if job.conditions:
            status["conditions"] = job.conditions
        status["replicaStatuses"] = job.replica_statuses or {}
        for key, value in (
            ("startTime", job.start_time),
            ("completionTime", job.completion_time),
            ("lastReconcileTime", job.last_reconcile_time),
        ):
            if value is not None:
                status[key] = format_time(value)
        return {"spec": job.spec, "status": status}


class PyTorchJobKind(TrainingJobKind):
    """``kubeflow.org/v1`` PyTorchJob."""

    framework = FRAMEWORKS["PyTorchJob"]
    api_version = "kubeflow.org/v1"
    kind = "PyTorchJob"
    resource = "pytorchjob.kubeflow.org"
    model = framework.model


class TFJobKind(TrainingJobKind):
    """``kubeflow.org/v1`` TFJob."""

    framework = FRAMEWORKS["TFJob"]
    api_version = "kubeflow.org/v1"
    kind = "TFJob"
    resource = "tfjob.kubeflow.org"
    model = framework.model


class MPIJobKind(TrainingJobKind):
    """``kubeflow.org/v1`` MPIJob."""

    framework = FRAMEWORKS["MPIJob"]
    api_version = "kubeflow.org/v1"
    kind = "MPIJob"
    resource = "mpijob.kubeflow.org"
    model = framework.model


def kind_for(framework: Framework) -> TrainingJobKind:
    """Return the manifest kind of ``framework``."""
    kinds: dict[str, type[TrainingJobKind]] = {
        "PyTorchJob": PyTorchJobKind,
        "TFJob": TFJobKind,
        "MPIJob": MPIJobKind,
    }
    return kinds[framework.kind]()
