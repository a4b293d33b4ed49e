"""What Volcano's job controller writes, as a client reads it: the pods' task-index label, the
PodGroup's minResources in ResourceQuota terms, and the PodGroupPending warning."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from jobs.models import Job
from tests.e2e.stack import Clock, nodes
from tests.jobs.controller_kit import admit, tick
from tests.kube.api_kit import EVENTS, JOBS, PODGROUPS, PODS

pytestmark = pytest.mark.django_db

JSON = "application/json"


def _container(requests: dict[str, str], limits: dict[str, str] | None = None) -> dict[str, Any]:
    resources: dict[str, Any] = {"requests": requests}
    if limits:
        resources["limits"] = limits
    return {"name": "main", "image": "busybox", "resources": resources}


def _submit(client: Client, name: str, tasks: list[dict[str, Any]], **spec: Any) -> Job:
    body = {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {"schedulerName": "volcano", "tasks": tasks, **spec},
    }
    response = client.post(JOBS.format(ns="default"), json.dumps(body), content_type=JSON)
    assert response.status_code == 201, response.content
    return Job.objects.get(name=name)


def _task(name: str, replicas: int, container: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": name,
        "replicas": replicas,
        "template": {"spec": {"containers": [container], "restartPolicy": "Never"}},
    }


def test_every_pod_carries_its_task_index_label(operator: Client) -> None:
    job = _submit(operator, "indexed", [_task("worker", 3, _container({"cpu": "1"}))])
    tick(job)
    admit(job)
    tick(job)

    items = operator.get(f"{PODS.format(ns='default')}?labelSelector=volcano.sh/job-name=indexed")
    labels = {p["metadata"]["name"]: p["metadata"]["labels"] for p in items.json()["items"]}

    assert {name: shown["volcano.sh/task-index"] for name, shown in labels.items()} == {
        "indexed-worker-0": "0",
        "indexed-worker-1": "1",
        "indexed-worker-2": "2",
    }
    assert labels["indexed-worker-1"]["volcano.sh/task-spec"] == "worker"
    one = operator.get(f"{PODS.format(ns='default')}?labelSelector=volcano.sh/task-index=1")
    assert [p["metadata"]["name"] for p in one.json()["items"]] == ["indexed-worker-1"]


def test_pod_group_min_resources_carry_the_resource_quota_names(operator: Client) -> None:
    gpu = _container(
        {"cpu": "500m", "memory": "1Gi", "nvidia.com/gpu": "1"},
        {"cpu": "1", "memory": "2Gi", "nvidia.com/gpu": "1"},
    )
    job = _submit(operator, "quota", [_task("worker", 3, gpu)], minAvailable=2)
    tick(job)

    groups = operator.get(PODGROUPS.format(ns="default")).json()["items"]
    [group] = [g for g in groups if g["metadata"]["name"] == f"quota-{job.uid}"]

    assert group["spec"]["minResources"] == {
        "count/pods": "2",
        "cpu": "1",
        "limits.cpu": "2",
        "limits.memory": "4Gi",
        "memory": "2Gi",
        "nvidia.com/gpu": "2",
        "pods": "2",
        "requests.cpu": "1",
        "requests.memory": "2Gi",
        "requests.nvidia.com/gpu": "2",
    }


def test_quota_names_do_not_hold_back_the_gang(operator: Client) -> None:
    nodes(1, cpu=4)
    job = _submit(operator, "fits", [_task("worker", 2, _container({"cpu": "1"}))])
    clock = Clock()

    clock.run_until(lambda: Job.objects.get(pk=job.pk).phase == "Running", cycles=10)


def test_an_unschedulable_pod_group_warns_pod_group_pending_on_the_job(operator: Client) -> None:
    nodes(1, cpu=2)
    _submit(operator, "huge", [_task("worker", 2, _container({"cpu": "4"}))])
    clock = Clock()
    for _ in range(4):
        clock.cycle()

    events = operator.get(EVENTS.format(ns="default")).json()["items"]
    pending = [
        e
        for e in events
        if e["reason"] == "PodGroupPending" and e["involvedObject"]["name"] == "huge"
    ]

    assert len(pending) == 1
    assert pending[0]["type"] == "Warning"
    assert pending[0]["involvedObject"]["kind"] == "Job"
    assert pending[0]["message"].startswith("PodGroup default:huge unschedulable, reason: ")
    assert len(pending[0]["message"]) > len("PodGroup default:huge unschedulable, reason: ")
