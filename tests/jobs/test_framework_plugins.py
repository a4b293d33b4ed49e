"""Volcano's pytorch, tensorflow and mpi job plugins: the env and ports on created pods, and
their arguments checked at admission."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kube.status import KubeError
from tests.jobs.controller_kit import admit, pods, submit, task, tick

pytestmark = pytest.mark.django_db


def env_of(pod: Any) -> dict[str, str]:
    return {item["name"]: item["value"] for item in pod.spec["containers"][0].get("env", [])}


def created(**spec: Any) -> dict[str, Any]:
    job = submit(**spec)
    tick(job)
    admit(job)
    tick(job)
    return pods(job)


def test_pytorch_plugin_wires_master_and_workers() -> None:
    made = created(tasks=[task("master", 1), task("worker", 2)], plugins={"pytorch": []})
    master, worker = env_of(made["job-master-0"]), env_of(made["job-worker-1"])
    assert master["MASTER_ADDR"] == "job-master-0.job"
    assert (master["MASTER_PORT"], master["WORLD_SIZE"], master["RANK"]) == ("23456", "3", "0")
    assert (worker["RANK"], worker["WORLD_SIZE"]) == ("2", "3")
    assert {"name": "pytorchjob-port", "containerPort": 23456} in made["job-worker-0"].spec[
        "containers"
    ][0]["ports"]
    assert "VC_MASTER_HOSTS" in master  # svc comes with it


def test_pytorch_plugin_takes_its_task_names_and_port() -> None:
    made = created(
        tasks=[task("leader", 1), task("follower", 1)],
        plugins={"pytorch": ["--master=leader", "--worker=follower", "--port=29500"]},
    )
    follower = env_of(made["job-follower-0"])
    assert (follower["MASTER_ADDR"], follower["MASTER_PORT"]) == ("job-leader-0.job", "29500")
    assert follower["RANK"] == "1"


def test_tensorflow_plugin_writes_tf_config() -> None:
    made = created(tasks=[task("ps", 1), task("worker", 2)], plugins={"tensorflow": []})
    config = json.loads(env_of(made["job-worker-1"])["TF_CONFIG"])
    assert config == {
        "cluster": {"ps": ["job-ps-0.job:2222"], "worker": ["job-worker-0.job:2222", "job-worker-1.job:2222"]},
        "task": {"type": "worker", "index": 1},
    }  # fmt: skip
    assert json.loads(env_of(made["job-ps-0"])["TF_CONFIG"])["task"] == {"type": "ps", "index": 0}


def test_mpi_plugin_gives_the_master_its_workers_and_needs_ssh() -> None:
    made = created(tasks=[task("master", 1), task("worker", 2)], plugins={"mpi": []})
    assert env_of(made["job-master-0"])["MPI_HOST"] == "job-worker-0.job,job-worker-1.job"
    assert "MPI_HOST" not in env_of(made["job-worker-0"])
    assert {"name": "mpijob-port", "containerPort": 22} in made["job-worker-0"].spec["containers"][
        0
    ]["ports"]
    volumes = [v["name"] for v in made["job-master-0"].spec["volumes"]]
    assert "job-ssh" in volumes


@pytest.mark.parametrize(
    ("plugins", "field"),
    [
        ({"pytorch": ["--port=http"]}, "spec.plugins.pytorch[0]"),
        ({"pytorch": ["--masters=a"]}, "spec.plugins.pytorch[0]"),
        ({"tensorflow": ["--port=70000"]}, "spec.plugins.tensorflow[0]"),
        ({"mpi": ["--worker=worker", "--port="]}, "spec.plugins.mpi[1]"),
        ({"mpi": ["--master=boss"]}, "spec.plugins.mpi"),
    ],
    ids=[
        "port-not-a-number",
        "unknown-flag",
        "port-out-of-range",
        "empty-port",
        "mpi-no-master-task",
    ],
)
def test_bad_plugin_arguments_are_refused_naming_the_argument(
    plugins: dict[str, list[str]], field: str
) -> None:
    with pytest.raises(KubeError) as refused:
        submit(tasks=[task("master", 1), task("worker", 1)], plugins=plugins)
    assert field in [cause.field for cause in refused.value.causes]
