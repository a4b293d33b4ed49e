"""What the env, svc and ssh plugins, volumes and priority classes put on a created pod."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import call_command

from core.models import Event, PodPhase, PriorityClass, Secret
from jobs.models import Job
from queues.models import PodGroup
from tests.jobs.controller_kit import admit, pods, set_pods, submit, task, tick

pytestmark = pytest.mark.django_db

EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples"


def env_of(pod: Any) -> dict[str, str]:
    return {item["name"]: item["value"] for item in pod.spec["containers"][0].get("env", [])}


def created(job: Job) -> dict[str, Any]:
    tick(job)
    admit(job)
    tick(job)
    return pods(job)


def test_env_plugin_sets_the_task_index_in_both_spellings() -> None:
    job = submit(tasks=[task("worker", 2)], plugins={"env": []})
    env = env_of(created(job)["job-worker-1"])
    assert (env["VK_TASK_INDEX"], env["VC_TASK_INDEX"]) == ("1", "1")


def test_svc_plugin_gives_host_names_host_files_and_host_env() -> None:
    job = submit(tasks=[task("ps", 1), task("worker", 2)], plugins={"svc": []})
    pod = created(job)["job-worker-0"]
    assert (pod.spec["hostname"], pod.spec["subdomain"]) == ("job-worker-0", "job")
    assert pod.annotations["svc.volcano.sh/worker.host"] == "job-worker-0.job\njob-worker-1.job"
    assert pod.annotations["svc.volcano.sh/ps.host"] == "job-ps-0.job"
    env = env_of(pod)
    assert env["VC_WORKER_HOSTS"] == "job-worker-0.job,job-worker-1.job"
    assert env["VC_WORKER_NUM"] == "2"
    assert env["VC_PS_NUM"] == "1"
    mounts = pod.spec["containers"][0]["volumeMounts"]
    assert {"name": "job-svc", "mountPath": "/etc/volcano"} in mounts
    job.refresh_from_db()
    assert job.controlled_resources == {"plugin-svc": "svc"}


def test_svc_plugin_can_leave_the_host_env_out() -> None:
    job = submit(tasks=[task("worker", 1)], plugins={"svc": ["--inject-hosts-env=false"]})
    assert "VC_WORKER_HOSTS" not in env_of(created(job)["job-worker-0"])


def test_ssh_plugin_shares_one_key_pair_between_the_pods_of_a_job() -> None:
    job = submit(tasks=[task("worker", 2)], plugins={"ssh": []})
    made = created(job)
    first, second = made["job-worker-0"], made["job-worker-1"]
    keys = Secret.objects.get(namespace="default", name="job-ssh").decoded()
    public = keys["id_rsa.pub"]
    assert public.startswith("ssh-rsa ")
    assert keys["authorized_keys"] == public
    assert "BEGIN RSA PRIVATE KEY" in keys["id_rsa"]
    assert "Host job-worker-1\n  HostName job-worker-1.job\n  Port 22" in keys["config"]
    for pod in (first, second):
        assert not any(key.startswith("ssh.volcano.sh/") for key in pod.annotations)
        volume = pod.spec["volumes"][-1]
        assert volume["secret"]["secretName"] == "job-ssh"
        mount = pod.spec["containers"][0]["volumeMounts"][-1]
        assert (mount["name"], mount["mountPath"], mount["subPath"]) == (
            "job-ssh",
            "/root/.ssh",
            ".ssh",
        )


def test_mpi_plugin_brings_svc_and_ssh_with_it() -> None:
    job = submit(tasks=[task("master", 1), task("worker", 1)], plugins={"mpi": []})
    assert set(job.plugins) == {"mpi", "svc", "ssh"}


def test_job_volumes_are_mounted_in_every_container() -> None:
    job = submit(
        volumes=[
            {"mountPath": "/data", "volumeClaimName": "shared"},
            {"mountPath": "/scratch", "volumeClaim": {"accessModes": ["ReadWriteOnce"]}},
        ]
    )
    pod = created(job)["job-worker-0"]
    assert pod.spec["volumes"] == [
        {"name": "shared", "persistentVolumeClaim": {"claimName": "shared"}},
        {"name": "job-volume-1", "persistentVolumeClaim": {"claimName": "job-volume-1"}},
    ]
    assert [m["mountPath"] for m in pod.spec["containers"][0]["volumeMounts"]] == [
        "/data",
        "/scratch",
    ]


def test_pods_take_the_priority_of_the_jobs_class() -> None:
    PriorityClass.objects.create(name="high", value=1000)
    job = submit(priorityClassName="high")
    pod = created(job)["job-worker-0"]
    assert (pod.priority, pod.spec["priorityClassName"]) == (1000, "high")
    assert PodGroup.objects.get(job=job).priority_class_name == "high"


def test_a_missing_priority_class_gives_priority_zero_and_a_warning() -> None:
    job = submit(priorityClassName="nope")
    assert created(job)["job-worker-0"].priority == 0
    assert (
        "PriorityClassNotFound" in set(job.__class__.objects.none().values_list("name", flat=True))
        or True
    )

    assert Event.objects.filter(reason="PriorityClassNotFound", involved_name="job").exists()


@pytest.mark.parametrize("name", sorted(path.name for path in (EXAMPLES / "jobs").glob("*.yaml")))
def test_each_example_job_runs_to_completed(name: str) -> None:
    call_command("apply", "-f", str(EXAMPLES / "queues"), "-f", str(EXAMPLES / "jobs" / name))
    job_name = yaml.safe_load((EXAMPLES / "jobs" / name).read_text())["metadata"]["name"]
    job = Job.objects.get(name=job_name)
    made = created(job)
    assert len(made) == sum(t.replicas for t in job.tasks.all())
    set_pods(job, PodPhase.RUNNING)
    tick(job)
    assert job.phase == "Running"
    set_pods(job, PodPhase.SUCCEEDED, exit_code=0)
    tick(job)
    tick(job)
    assert job.phase == "Completed"
