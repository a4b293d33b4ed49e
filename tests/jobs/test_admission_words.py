"""Admission refusals say what Volcano's webhooks say, at the field they concern."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client

from jobs.models import Job
from queues.models import Queue
from tests.kube.api_kit import JOBS, QUEUES, example

pytestmark = pytest.mark.django_db

JSON = "application/json"


def _job(**spec: Any) -> dict[str, Any]:
    manifest = example("jobs/nginx-sleep.yaml")
    manifest["spec"]["queue"] = "default"
    manifest["spec"].update(spec)
    return manifest


@dataclass(frozen=True)
class Case:
    name: str
    manifest: dict[str, Any]
    field: str
    words: str


CASES = [
    Case(
        "unknown-plugin",
        _job(plugins={"magic": []}),
        "spec.plugins.magic",
        "unable to find job plugin: magic",
    ),
    Case(
        "mpi-without-master",
        _job(plugins={"mpi": ["--master=boss"]}),
        "spec.plugins.mpi",
        "The specified mpi master task was not found",
    ),
    Case(
        "policy-without-event-or-exit-code",
        _job(policies=[{"action": "RestartJob"}]),
        "spec.policies[0]",
        "either event and exitCode should be specified",
    ),
    Case(
        "internal-policy-event",
        _job(policies=[{"event": "PodRunning", "action": "RestartJob"}]),
        "spec.policies[0].event",
        "invalid policy event",
    ),
    Case(
        "internal-policy-action",
        _job(policies=[{"event": "PodFailed", "action": "SyncJob"}]),
        "spec.policies[0].action",
        "invalid policy action",
    ),
    Case(
        "event-in-two-policies",
        _job(
            policies=[
                {"event": "PodFailed", "action": "RestartJob"},
                {"events": ["PodEvicted", "PodFailed"], "action": "AbortJob"},
            ]
        ),
        "spec.policies[1].events",
        "duplicate event PodFailed across different policy",
    ),
    Case(
        "claim-and-claim-name",
        _job(volumes=[{"mountPath": "/d", "volumeClaimName": "x", "volumeClaim": {}}]),
        "spec.volumes[0]",
        "conflict: If you want to use an existing PVC, just specify VolumeClaimName.",
    ),
    Case(
        "duplicated-mount-path",
        _job(
            volumes=[
                {"mountPath": "/d", "volumeClaimName": "a"},
                {"mountPath": "/d", "volumeClaimName": "b"},
            ]
        ),
        "spec.volumes[1].mountPath",
        "duplicated mountPath: /d",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_refusal_carries_volcano_s_words_at_the_field(operator: Client, case: Case) -> None:
    response = operator.post(
        JOBS.format(ns="default"), json.dumps(case.manifest), content_type=JSON
    )

    assert response.status_code == 422, response.content
    causes = {c["field"]: c["message"] for c in response.json()["details"]["causes"]}
    assert case.field in causes, causes
    assert case.words in causes[case.field]
    assert not Job.objects.exists()


def test_a_job_for_a_queue_with_children_names_how_many(operator: Client) -> None:
    Queue.objects.create(name="parent")
    Queue.objects.create(name="child-a", parent="parent")
    Queue.objects.create(name="child-b", parent="parent")

    response = operator.post(
        JOBS.format(ns="default"), json.dumps(_job(queue="parent")), content_type=JSON
    )

    assert response.status_code == 422
    [cause] = response.json()["details"]["causes"]
    assert cause["field"] == "spec.queue"
    assert (
        cause["message"] == "can only submit job to leaf queue, queue `parent` has 2 child queues"
    )


def test_a_volume_without_any_claim_is_refused_as_volcano_s_webhook_does(
    operator: Client,
) -> None:
    manifest = example("jobs/test-job-volumes.yaml")
    del manifest["spec"]["volumes"][0]["volumeClaimName"]  # /myinput: neither claim nor name

    response = operator.post(JOBS.format(ns="default"), json.dumps(manifest), content_type=JSON)

    assert response.status_code == 422, response.content
    causes = response.json()["details"]["causes"]
    assert [(c["field"], c["message"]) for c in causes] == [
        ("spec.volumes[0]", "either VolumeClaim or VolumeClaimName must be specified")
    ]
    assert not Job.objects.filter(name="test-job").exists()


def test_queue_refusals_name_the_field(operator: Client) -> None:
    manifest = example("queues/test.yaml")
    manifest["spec"]["deserved"] = {"cpu": "1"}
    manifest["spec"]["guarantee"] = {"resource": {"cpu": "2"}}

    response = operator.post(QUEUES, json.dumps(manifest), content_type=JSON)

    assert response.status_code == 422
    causes = {c["field"]: c["message"] for c in response.json()["details"]["causes"]}
    assert causes["spec.deserved.cpu"] == "deserved[cpu]=1 must be >= guarantee[cpu]=2"
