"""The training-job controller: PodGroup, pods and env per framework, conditions, run policies."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from core.models import Pod, PodPhase, PriorityClass
from queues.models import PodGroup, Queue
from tests.training.kit import NOW, env, pods, pytorch, replica, set_pods, states, submit, tick
from training.models import PyTorchJob
from training.wiring import HOSTFILE_ANNOTATION

pytestmark = pytest.mark.django_db


def test_pytorchjob_gets_one_podgroup_from_its_scheduling_policy() -> None:
    Queue.objects.create(name="test")
    PriorityClass.objects.create(name="high-priority", value=1000)
    job = submit(
        pytorch(
            workers=5, run={"schedulingPolicy": {"queue": "test", "priorityClass": "high-priority"}}
        )
    )
    job = tick(job)
    group = PodGroup.objects.get(namespace="default", name=job.name)
    assert group.min_member == 6
    assert (group.queue, group.priority_class_name) == ("test", "high-priority")
    assert group.min_resources == {"cpu": 6000, "memory": 6 * 1024**3 * 1000}
    assert states(job) == [("Created", "True")]


def test_min_available_and_min_resources_come_from_the_scheduling_policy() -> None:
    run = {"schedulingPolicy": {"minAvailable": 2, "minResources": {"cpu": "3"}}}
    job = tick(submit(pytorch(workers=3, run=run)))
    group = PodGroup.objects.get(name=job.name)
    assert (group.min_member, group.min_resources) == (2, {"cpu": 3000})


def test_pytorch_pods_are_named_and_wired_with_master_addr_world_size_and_rank() -> None:
    PriorityClass.objects.create(name="high-priority", value=1000)
    job = tick(
        submit(pytorch(workers=2, run={"schedulingPolicy": {"priorityClass": "high-priority"}}))
    )
    found = pods(job)
    assert sorted(found) == ["ptj-master-0", "ptj-worker-0", "ptj-worker-1"]
    master, worker = found["ptj-master-0"], found["ptj-worker-1"]
    assert env(master) | {} == {"MASTER_PORT": "23456", "MASTER_ADDR": "ptj-master-0", "WORLD_SIZE": "3",
                                "RANK": "0", "PYTHONUNBUFFERED": "1"}  # fmt: skip
    assert env(worker)["RANK"] == "2"
    assert master.spec["containers"][0]["ports"] == [
        {"name": "pytorchjob-port", "containerPort": 23456, "protocol": "TCP"}
    ]
    assert master.spec["restartPolicy"] == "OnFailure"
    assert master.labels["training.kubeflow.org/replica-type"] == "master"
    assert master.labels["training.kubeflow.org/job-role"] == "master"
    assert master.annotations["scheduling.k8s.io/group-name"] == "ptj"
    assert master.scheduler_name == "volcano"
    assert master.priority == 1000


def test_tfjob_pods_carry_tf_config_with_the_cluster_and_their_task() -> None:
    manifest = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "TFJob",
        "metadata": {"name": "dist", "namespace": "default"},
        "spec": {
            "tfReplicaSpecs": {"PS": replica(1, "tensorflow"), "Worker": replica(2, "tensorflow")}
        },
    }
    job = tick(submit(manifest))
    found = pods(job)
    assert sorted(found) == ["dist-ps-0", "dist-worker-0", "dist-worker-1"]
    config = json.loads(env(found["dist-worker-1"])["TF_CONFIG"])
    assert config == {
        "cluster": {
            "ps": ["dist-ps-0.default.svc:2222"],
            "worker": ["dist-worker-0.default.svc:2222", "dist-worker-1.default.svc:2222"],
        },
        "task": {"type": "worker", "index": 1},
        "environment": "cloud",
    }
    assert found["dist-ps-0"].spec["restartPolicy"] == "Never"


def test_mpijob_has_a_launcher_with_the_workers_hostfile() -> None:
    manifest = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "MPIJob",
        "metadata": {"name": "hvd", "namespace": "default"},
        "spec": {
            "slotsPerWorker": 2,
            "mpiReplicaSpecs": {"Launcher": replica(1, "mpi"), "Worker": replica(2, "mpi")},
        },
    }
    job = tick(submit(manifest))
    found = pods(job)
    assert sorted(found) == ["hvd-launcher", "hvd-worker-0", "hvd-worker-1"]
    launcher = found["hvd-launcher"]
    assert (
        launcher.annotations[HOSTFILE_ANNOTATION] == "hvd-worker-0 slots=2\nhvd-worker-1 slots=2\n"
    )
    assert env(launcher)["OMPI_MCA_orte_default_hostfile"] == "/etc/mpi/hostfile"
    assert PodGroup.objects.get(name="hvd").min_member == 3
    set_pods(job, PodPhase.RUNNING)
    job = tick(job)
    set_pods(job, PodPhase.SUCCEEDED, "hvd-launcher")
    job = tick(job)
    assert job.state == "Succeeded"


def test_conditions_go_created_running_succeeded() -> None:
    job = tick(submit(pytorch(workers=1)))
    assert job.state == "Created"
    set_pods(job, PodPhase.RUNNING)
    job = tick(job, NOW + dt.timedelta(seconds=5))
    assert states(job) == [("Created", "True"), ("Running", "True")]
    assert job.replica_statuses == {"Master": {"active": 1}, "Worker": {"active": 1}}
    set_pods(job, PodPhase.SUCCEEDED, "ptj-master-0", exit_code=0)
    job = tick(job, NOW + dt.timedelta(seconds=9))
    assert states(job) == [("Created", "True"), ("Running", "False"), ("Succeeded", "True")]
    assert job.completion_time == NOW + dt.timedelta(seconds=9)
    before = job.resource_version
    assert tick(job, NOW + dt.timedelta(seconds=20)).resource_version == before  # settled


def test_a_failed_pod_restarts_until_the_backoff_limit_then_the_job_fails() -> None:
    job = tick(submit(pytorch(workers=1, run={"backoffLimit": 1})))
    set_pods(job, PodPhase.RUNNING)
    job = tick(job)
    set_pods(job, PodPhase.FAILED, "ptj-worker-0", exit_code=1)
    job = tick(job)
    assert job.state == "Restarting"
    assert job.restarts == 1
    assert pods(job)["ptj-worker-0"].phase == PodPhase.PENDING  # deleted and created again
    set_pods(job, PodPhase.RUNNING)
    job = tick(job)
    assert job.state == "Running"
    assert [c["type"] for c in job.conditions] == ["Created", "Running"]
    set_pods(job, PodPhase.FAILED, "ptj-worker-0", exit_code=1)
    job = tick(job)
    assert job.state == "Failed"
    assert job.conditions[-1]["reason"] == "PyTorchJobFailed"  # the operator's reason for both
    assert job.conditions[-1]["message"] == (
        "Job ptj has failed because it has reached the specified backoff limit"
    )


def test_a_never_restarted_replica_that_fails_fails_the_job() -> None:
    job = tick(submit(pytorch(workers=0, restartPolicy="Never")))
    set_pods(job, PodPhase.FAILED, exit_code=2)
    job = tick(job)
    assert job.state == "Failed"
    assert job.conditions[-1]["reason"] == "PyTorchJobFailed"


@pytest.mark.parametrize(
    ("policy", "left"),
    [("None", ["ptj-master-0", "ptj-worker-0"]), ("Running", ["ptj-master-0"]), ("All", [])],
)
def test_clean_pod_policy_decides_which_pods_stay_after_success(
    policy: str, left: list[str]
) -> None:
    job = tick(submit(pytorch(workers=1, run={"cleanPodPolicy": policy})))
    set_pods(job, PodPhase.RUNNING)
    job = tick(job)
    set_pods(job, PodPhase.SUCCEEDED, "ptj-master-0", exit_code=0)
    job = tick(job)
    assert job.state == "Succeeded"
    assert sorted(pods(job)) == left


def test_ttl_deletes_the_finished_job_with_its_pods_and_podgroup() -> None:
    job = tick(submit(pytorch(workers=0, run={"ttlSecondsAfterFinished": 30})))
    set_pods(job, PodPhase.SUCCEEDED, exit_code=0)
    job = tick(job)
    tick(job, NOW + dt.timedelta(seconds=29))
    assert PyTorchJob.objects.filter(pk=job.pk).exists()
    tick(job, NOW + dt.timedelta(seconds=30))
    assert not PyTorchJob.objects.filter(pk=job.pk).exists()
    assert not PodGroup.objects.filter(name="ptj").exists()
    assert not Pod.objects.filter(name="ptj-master-0").exists()


def test_active_deadline_fails_the_job_and_stops_its_pods() -> None:
    job = tick(
        submit(pytorch(workers=1, run={"activeDeadlineSeconds": 60, "cleanPodPolicy": "Running"}))
    )
    set_pods(job, PodPhase.RUNNING)
    job = tick(job, NOW + dt.timedelta(seconds=59))
    assert job.state == "Running"
    job = tick(job, NOW + dt.timedelta(seconds=60))
    assert job.state == "Failed"
    assert job.conditions[-1]["reason"] == "PyTorchJobFailed"
    assert job.conditions[-1]["message"] == (
        "Job ptj has failed because it was active longer than specified deadline"
    )
    assert pods(job) == {}


def test_deleting_the_job_deletes_its_pods_and_podgroup() -> None:
    job = tick(submit(pytorch(workers=2)))
    assert len(pods(job)) == 3
    job.delete()
    tick(job)
    assert not PodGroup.objects.filter(name="ptj").exists()
    assert not Pod.objects.filter(name__startswith="ptj-").exists()
