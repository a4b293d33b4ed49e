"""Deleting a job's pod through the API is an eviction: the job's PodEvicted policies apply.

And a Command is consumed at most once: gone by the time the job shows its action's phase.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from core.models import Event, Pod
from jobs.models import Command, Job, PodEviction
from tests.jobs.controller_kit import admit, set_pods, start, task, tick
from tests.kube.api_kit import COMMANDS, JOBS, PODS

pytestmark = pytest.mark.django_db

JSON = "application/json"


def _job(client: Client, name: str, **spec: Any) -> Job:
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
    assert job.phase == "Running"
    return job


def _delete_pod(client: Client, name: str) -> None:
    response = client.delete(f"{PODS.format(ns='default')}/{name}")
    assert response.status_code == 200, response.content


def _phase(client: Client, name: str) -> str:
    shown = client.get(f"{JOBS.format(ns='default')}/{name}").json()
    return str(shown["status"]["state"]["phase"])


def test_deleting_a_pod_restarts_a_job_whose_policy_says_so(operator: Client) -> None:
    job = _job(operator, "evicted", policies=[{"event": "PodEvicted", "action": "RestartJob"}])

    _delete_pod(operator, "evicted-worker-0")
    tick(job)

    assert (job.phase, job.retry_count) == ("Restarting", 1)
    assert _phase(operator, "evicted") == "Restarting"
    assert not PodEviction.objects.exists()  # taken once
    assert Event.objects.filter(
        involved_name="evicted", reason="ExecuteAction", message__contains="RestartJob"
    ).exists()


def test_a_task_policy_on_any_event_aborts_the_job(operator: Client) -> None:
    worker = task("worker", 2, policies=[{"event": "*", "action": "AbortJob"}])
    body_job = _job(operator, "star", tasks=[worker])

    _delete_pod(operator, "star-worker-1")
    tick(body_job)

    assert body_job.phase == "Aborting"


def test_an_event_list_with_pod_evicted_terminates_the_job(operator: Client) -> None:
    policy = {"events": ["PodFailed", "PodEvicted"], "action": "TerminateJob"}
    job = _job(operator, "listed", policies=[policy])

    _delete_pod(operator, "listed-worker-0")
    tick(job)

    assert job.phase == "Terminating"


def test_without_a_policy_a_deleted_pod_is_only_recreated(operator: Client) -> None:
    job = _job(operator, "plain")

    _delete_pod(operator, "plain-worker-0")
    tick(job)

    assert (job.retry_count, job.version) == (0, 0)  # no restart: SyncJob
    assert job.phase not in ("Restarting", "Aborting", "Terminating")
    assert Pod.objects.filter(job=job, name="plain-worker-0").exists()


def test_the_controllers_own_deletions_are_not_evictions(operator: Client) -> None:
    job = _job(operator, "own", policies=[{"event": "PodEvicted", "action": "AbortJob"}])
    scaled = operator.get(f"{JOBS.format(ns='default')}/own").json()
    scaled["spec"]["tasks"][0]["replicas"] = 1
    scaled["spec"]["minAvailable"] = 1
    scaled["spec"]["tasks"][0]["minAvailable"] = 1
    response = operator.put(
        f"{JOBS.format(ns='default')}/own", json.dumps(scaled), content_type=JSON
    )
    assert response.status_code == 200, response.content

    for _ in range(3):
        tick(job)

    assert Pod.objects.filter(job=job).count() == 1  # scaled down by the controller
    assert job.phase == "Running"
    assert not PodEviction.objects.exists()


def test_a_pod_of_the_restarted_job_deleted_again_counts_another_retry(operator: Client) -> None:
    job = _job(operator, "stale", policies=[{"event": "PodEvicted", "action": "RestartJob"}])
    _delete_pod(operator, "stale-worker-0")
    tick(job)
    assert job.retry_count == 1
    for _ in range(3):
        tick(job)
    admit(job)
    tick(job)
    set_pods(job, "Running")
    tick(job)
    assert (job.phase, job.retry_count) == ("Running", 1)

    _delete_pod(operator, "stale-worker-1")  # a pod of the new version: counted again
    tick(job)

    assert (job.phase, job.retry_count) == ("Restarting", 2)


def test_a_command_is_gone_when_the_job_shows_aborting(operator: Client) -> None:
    job = _job(operator, "cmd")
    body = {
        "apiVersion": "bus.volcano.sh/v1alpha1",
        "kind": "Command",
        "metadata": {"name": "cmd-abort"},
        "action": "AbortJob",
        "target": {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": "cmd"},
    }
    response = operator.post(COMMANDS.format(ns="default"), json.dumps(body), content_type=JSON)
    assert response.status_code == 201, response.content

    tick(job)

    assert _phase(operator, "cmd") == "Aborting"
    gone = operator.get(f"{COMMANDS.format(ns='default')}/cmd-abort")
    assert gone.status_code == 404
    assert not Command.objects.exists()
    reasons = list(
        Event.objects.filter(involved_name="cmd", involved_kind="Job")
        .filter(reason__in=["CommandIssued", "ExecuteAction"])
        .order_by("pk")
        .values_list("reason", flat=True)
    )
    assert reasons == ["CommandIssued", "ExecuteAction"]


def test_a_pod_held_by_a_finalizer_is_an_eviction_once_it_goes(operator: Client) -> None:
    job = _job(operator, "held", policies=[{"event": "PodEvicted", "action": "RestartJob"}])
    url = f"{PODS.format(ns='default')}/held-worker-0"
    merge = "application/merge-patch+json"
    hold = {"metadata": {"finalizers": ["example.com/hold"]}}
    assert operator.patch(url, json.dumps(hold), content_type=merge).status_code == 200
    _delete_pod(operator, "held-worker-0")
    tick(job)
    assert job.retry_count == 0  # still there, Terminating

    release = {"metadata": {"finalizers": None}}
    assert operator.patch(url, json.dumps(release), content_type=merge).status_code == 200
    tick(job)

    assert (job.phase, job.retry_count) == ("Restarting", 1)
