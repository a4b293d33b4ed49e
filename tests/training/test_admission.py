"""Admission of PyTorchJob, TFJob and MPIJob: every refusal names its field."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from apis.errors import ManifestError
from core.models import PriorityClass
from kube.admission_causes import AdmissionError
from kube.manifests import load_manifest
from queues.models import Queue
from tests.training.kit import pytorch, replica, submit
from training.models import PyTorchJob

pytestmark = pytest.mark.django_db


def tfjob(**specs: Any) -> dict[str, Any]:
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "TFJob",
        "metadata": {"name": "tfj", "namespace": "default"},
        "spec": {"tfReplicaSpecs": specs or {"Worker": replica(2, "tensorflow")}},
    }


def mpijob(**specs: Any) -> dict[str, Any]:
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "MPIJob",
        "metadata": {"name": "mpij", "namespace": "default"},
        "spec": {
            "slotsPerWorker": 1,
            "mpiReplicaSpecs": specs
            or {"Launcher": replica(1, "mpi"), "Worker": replica(2, "mpi")},
        },
    }


def _edit(manifest: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    copied = copy.deepcopy(manifest)
    change(copied)
    return copied


@dataclass(frozen=True)
class Case:
    name: str
    manifest: dict[str, Any]
    field: str


def _spec(m: dict[str, Any]) -> dict[str, Any]:
    specs: dict[str, Any] = m["spec"]["pytorchReplicaSpecs"]
    return specs


CASES = [
    Case("worker-without-master", _edit(pytorch(), lambda m: _spec(m).pop("Master")),
         "spec.pytorchReplicaSpecs[Master]"),
    Case("negative-replicas", _edit(pytorch(), lambda m: _spec(m)["Worker"].update(replicas=-1)),
         "spec.pytorchReplicaSpecs[Worker].replicas"),
    Case("two-masters", _edit(pytorch(), lambda m: _spec(m)["Master"].update(replicas=2)),
         "spec.pytorchReplicaSpecs[Master].replicas"),
    Case("unknown-replica-type", _edit(pytorch(), lambda m: _spec(m).update(Launcher=replica())),
         "spec.pytorchReplicaSpecs[Launcher]"),
    Case("no-pytorch-container", _edit(pytorch(), lambda m: _spec(m).update(Worker=replica(1, "main"))),
         "spec.pytorchReplicaSpecs[Worker].template.spec.containers"),
    Case("bad-restart-policy", _edit(pytorch(), lambda m: _spec(m)["Worker"].update(restartPolicy="Sometimes")),
         "spec.pytorchReplicaSpecs[Worker].restartPolicy"),
    Case("unknown-queue", pytorch(run={"schedulingPolicy": {"queue": "nowhere"}}),
         "spec.runPolicy.schedulingPolicy.queue"),
    Case("unknown-priority-class", pytorch(run={"schedulingPolicy": {"priorityClass": "vip"}}),
         "spec.runPolicy.schedulingPolicy.priorityClass"),
    Case("bad-clean-pod-policy", pytorch(run={"cleanPodPolicy": "Sometimes"}),
         "spec.runPolicy.cleanPodPolicy"),
    Case("negative-backoff-limit", pytorch(run={"backoffLimit": -1}), "spec.runPolicy.backoffLimit"),
    Case("min-available-above-replicas", pytorch(run={"schedulingPolicy": {"minAvailable": 9}}),
         "spec.runPolicy.schedulingPolicy.minAvailable"),
    Case("tf-unknown-type", tfjob(Driver=replica(1, "tensorflow")), "spec.tfReplicaSpecs[Driver]"),
    Case("tf-no-tensorflow-container", tfjob(Worker=replica(1, "main")),
         "spec.tfReplicaSpecs[Worker].template.spec.containers"),
    Case("tf-two-chiefs", tfjob(Chief=replica(2, "tensorflow")), "spec.tfReplicaSpecs[Chief].replicas"),
    Case("mpi-without-launcher", mpijob(Worker=replica(2, "mpi")), "spec.mpiReplicaSpecs[Launcher]"),
    Case("zero-workers", _edit(pytorch(), lambda m: _spec(m)["Worker"].update(replicas=0)),
         "spec.pytorchReplicaSpecs[Worker].replicas"),
    Case("zero-masters", _edit(pytorch(), lambda m: _spec(m)["Master"].update(replicas=0)),
         "spec.pytorchReplicaSpecs[Master].replicas"),
    Case("name-not-dns-1035", _edit(pytorch(), lambda m: m["metadata"].update(name="1st-job")),
         "metadata.name"),
    Case("elastic-without-workers", _edit(pytorch(workers=0), lambda m: m["spec"].update(elasticPolicy={})),
         "spec.pytorchReplicaSpecs[Worker]"),
    Case("both-nproc-per-node", _edit(pytorch(), lambda m: m["spec"].update(
        elasticPolicy={"nProcPerNode": 2}, nprocPerNode="2")), "spec.elasticPolicy.nProcPerNode"),
    Case("unknown-manager", pytorch(run={"managedBy": "someone"}), "spec.runPolicy.managedBy"),
    Case("tf-chief-and-master", tfjob(Chief=replica(1, "tensorflow"), Master=replica(1, "tensorflow")),
         "spec.tfReplicaSpecs"),
    Case("mpi-two-launchers", mpijob(Launcher=replica(2, "mpi"), Worker=replica(2, "mpi")),
         "spec.mpiReplicaSpecs[Launcher].replicas"),
    Case("mpi-negative-workers", mpijob(Launcher=replica(1, "mpi"), Worker=replica(-2, "mpi")),
         "spec.mpiReplicaSpecs[Worker].replicas"),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_refused_training_job_names_its_field_and_stores_nothing(case: Case) -> None:
    with pytest.raises(AdmissionError) as refused:
        submit(case.manifest)
    assert case.field in [cause.field for cause in refused.value.causes], refused.value.causes
    assert not PyTorchJob.objects.exists()


def test_zero_workers_are_refused_with_the_webhooks_message() -> None:
    with pytest.raises(AdmissionError) as refused:
        submit(_edit(pytorch(), lambda m: _spec(m)["Worker"].update(replicas=0)))
    [cause] = refused.value.causes
    assert (cause.field, cause.reason, cause.message) == (
        "spec.pytorchReplicaSpecs[Worker].replicas",
        "FieldValueForbidden",
        "must be at least 1",
    )


def test_managed_by_cannot_change() -> None:
    submit(pytorch(run={"managedBy": "kubeflow.org/training-operator"}))
    with pytest.raises(AdmissionError) as refused:
        submit(pytorch(run={"managedBy": "kueue.x-k8s.io/multikueue"}))
    assert [c.field for c in refused.value.causes] == ["spec.runPolicy.managedBy"]
    assert refused.value.causes[0].message == "field is immutable"


def test_unknown_spec_field_is_refused_with_its_path() -> None:
    manifest = _edit(pytorch(), lambda m: m["spec"].update(tasks=[]))
    with pytest.raises(ManifestError) as refused:
        load_manifest(manifest)
    assert refused.value.field == "spec.tasks"


def test_good_jobs_of_each_kind_are_admitted_with_the_operators_defaults() -> None:
    Queue.objects.create(name="test")
    PriorityClass.objects.create(name="high-priority", value=1000)
    lower = _edit(pytorch(run={"schedulingPolicy": {"queue": "test", "priorityClass": "high-priority"}}),
                  lambda m: m["spec"]["pytorchReplicaSpecs"].update(worker=m["spec"]["pytorchReplicaSpecs"].pop("Worker")))  # fmt: skip
    job = submit(lower)
    assert sorted(job.spec["pytorchReplicaSpecs"]) == ["Master", "Worker"]
    assert job.spec["pytorchReplicaSpecs"]["Worker"]["restartPolicy"] == "OnFailure"
    assert job.spec["runPolicy"]["cleanPodPolicy"] == "None"
    assert (job.queue, job.priority_class_name) == ("test", "high-priority")
    tf = submit(tfjob(PS=replica(1, "tensorflow"), Worker=replica(2, "tensorflow")))
    assert tf.spec["tfReplicaSpecs"]["PS"]["restartPolicy"] == "Never"
    assert tf.spec["runPolicy"]["cleanPodPolicy"] == "Running"
    mpi = submit(mpijob())
    assert mpi.queue == "default"
