"""Deleting a node collects its pods as Kubernetes' pod GC does, so their jobs' policies apply."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from core.models import Node, Pod
from jobs.models import Job
from queues.models import PodGroup
from tests.jobs.controller_kit import set_pods, start, task, tick
from tests.kube.api_kit import JOBS, NODES, PODS

pytestmark = pytest.mark.django_db

JSON = "application/json"
GI = 1024**3 * 1000


def _node(name: str) -> Node:
    alloc = {"cpu": 8000, "memory": 8 * GI, "pods": 110_000}
    return Node.objects.create(name=name, allocatable=alloc, capacity=alloc)


def _running_job(client: Client, name: str, node: Node, **spec: Any) -> Job:
    body = {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {"tasks": [task("worker", 2)], **spec},
    }
    response = client.post(JOBS.format(ns="default"), json.dumps(body), content_type=JSON)
    assert response.status_code == 201, response.content
    job = Job.objects.get(name=name)
    start(job)
    Pod.objects.filter(job=job).update(node=node)
    assert job.phase == "Running"
    return job


def _delete_node(client: Client, name: str) -> None:
    response = client.delete(f"{NODES}/{name}")
    assert response.status_code == 200, response.content


def test_deleting_a_node_restarts_a_job_whose_policy_says_so(operator: Client) -> None:
    node = _node("n1")
    job = _running_job(
        operator, "on-n1", node, policies=[{"event": "PodEvicted", "action": "RestartJob"}]
    )

    _delete_node(operator, "n1")
    tick(job)

    assert (job.phase, job.retry_count) == ("Restarting", 1)


def test_a_job_without_policies_gets_its_pods_back_off_the_gone_node(operator: Client) -> None:
    node = _node("n1")
    job = _running_job(operator, "plain", node)

    _delete_node(operator, "n1")

    assert not Pod.objects.filter(job=job).exists()  # failed, then deleted, as pod GC does
    tick(job)
    assert sorted(Pod.objects.filter(job=job).values_list("name", flat=True)) == [
        "plain-worker-0",
        "plain-worker-1",
    ]
    assert not Pod.objects.filter(job=job, node__isnull=False).exists()


def test_watchers_see_the_pod_failed_by_pod_gc_as_it_goes(operator: Client) -> None:
    node = _node("n1")
    _running_job(operator, "watched", node)
    listed = operator.get(PODS.format(ns="default")).json()
    version = listed["metadata"]["resourceVersion"]

    _delete_node(operator, "n1")

    stream: Any = operator.get(
        f"{PODS.format(ns='default')}?watch=1&resourceVersion={version}&timeoutSeconds=1"
    )
    events = [json.loads(line) for line in b"".join(stream.streaming_content).splitlines()]
    deleted = [e["object"] for e in events if e["type"] == "DELETED"]
    assert len(deleted) == 2, events
    assert {pod["status"]["phase"] for pod in deleted} == {"Failed"}
    condition = next(
        c for c in deleted[0]["status"]["conditions"] if c["type"] == "DisruptionTarget"
    )
    assert (condition["reason"], condition["message"]) == (
        "DeletionByPodGC",
        "PodGC: node no longer exists",
    )


def test_finished_pods_are_kept_without_their_node(operator: Client) -> None:
    node = _node("n1")
    job = _running_job(operator, "done", node)
    set_pods(job, "Succeeded", exit_code=0)

    _delete_node(operator, "n1")

    assert Pod.objects.filter(job=job, phase="Succeeded", node__isnull=True).count() == 2


def test_a_bare_pods_podgroup_goes_with_the_pod_on_a_deleted_node(operator: Client) -> None:
    from scheduler.worker import run_once

    _node("n1")
    body = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "bare"},
        "spec": {
            "schedulerName": "volcano",
            "containers": [
                {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}
            ],
        },
    }
    assert (
        operator.post(PODS.format(ns="default"), json.dumps(body), content_type=JSON).status_code
        == 201
    )
    run_once()
    assert Pod.objects.get(name="bare").node_id is not None

    _delete_node(operator, "n1")

    assert not Pod.objects.filter(name="bare").exists()
    assert not PodGroup.objects.exists()
