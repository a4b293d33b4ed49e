"""Deletes honour DeleteOptions.preconditions and updates refuse another incarnation's uid."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from queues.models import Queue
from tests.kube.api_kit import QUEUES

pytestmark = pytest.mark.django_db


def _queue(operator: Client) -> dict[str, Any]:
    body = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
            "metadata": {"name": "research"}, "spec": {"weight": 2}}  # fmt: skip
    response = operator.post(QUEUES, json.dumps(body), content_type="application/json")
    assert response.status_code == 201
    created: dict[str, Any] = response.json()
    return created


def _delete(operator: Client, preconditions: dict[str, str]) -> Any:
    options = {"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": preconditions}
    return operator.delete(
        f"{QUEUES}/research", json.dumps(options), content_type="application/json"
    )


def test_a_delete_with_a_stale_resource_version_is_a_409_and_deletes_nothing(
    operator: Client,
) -> None:
    created = _queue(operator)
    response = _delete(
        operator, {"resourceVersion": str(int(created["metadata"]["resourceVersion"]) - 1)}
    )
    assert response.status_code == 409
    assert "Precondition failed" in response.json()["message"]
    assert Queue.objects.filter(name="research").exists()


def test_a_delete_with_another_uid_is_a_409(operator: Client) -> None:
    _queue(operator)
    response = _delete(operator, {"uid": "00000000-0000-0000-0000-000000000000"})
    assert response.status_code == 409
    assert Queue.objects.filter(name="research").exists()


def test_a_delete_whose_preconditions_match_goes_ahead(operator: Client) -> None:
    meta = _queue(operator)["metadata"]
    response = _delete(operator, {"uid": meta["uid"], "resourceVersion": meta["resourceVersion"]})
    assert response.status_code == 200
    assert not Queue.objects.filter(name="research").exists()


def test_an_update_naming_another_uid_is_refused(operator: Client) -> None:
    created = _queue(operator)
    created["metadata"]["uid"] = "00000000-0000-0000-0000-000000000000"
    created["spec"]["weight"] = 9
    response = operator.put(
        f"{QUEUES}/research", json.dumps(created), content_type="application/json"
    )
    assert response.status_code == 409
    assert Queue.objects.get(name="research").weight == 2


def test_a_command_as_vcctl_builds_it_keeps_its_owner_and_goes_with_it(operator: Client) -> None:
    from jobs.models import Command, Job
    from jobs.services import job_submit

    job = job_submit(manifest={
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
        "metadata": {"name": "train", "namespace": "default"},
        "spec": {"minAvailable": 1, "tasks": [{"name": "m", "replicas": 1, "template": {
            "spec": {"containers": [{"name": "m", "image": "busybox"}]}}}]},
    })  # fmt: skip
    owner = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": "train",
             "uid": str(job.uid), "controller": True, "blockOwnerDeletion": True}  # fmt: skip
    command = {
        "apiVersion": "bus.volcano.sh/v1alpha1", "kind": "Command",
        "metadata": {"generateName": "train-abortjob-", "namespace": "default",
                     "ownerReferences": [owner], "finalizers": []},
        "action": "AbortJob", "target": {k: owner[k] for k in ("apiVersion", "kind", "name", "uid")},
    }  # fmt: skip
    url = "/apis/bus.volcano.sh/v1alpha1/namespaces/default/commands"
    response = operator.post(url, json.dumps(command), content_type="application/json")
    assert response.status_code == 201, response.content
    created = response.json()["metadata"]
    assert created["name"].startswith("train-abortjob-")
    assert created["ownerReferences"][0]["uid"] == str(job.uid)

    Job.objects.get(pk=job.pk).delete()
    assert not Command.objects.exists()  # collected with its owner
