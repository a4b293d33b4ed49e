"""Jobs on the API: Volcano's example manifests in and out, selectors, patches, conflicts."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from jobs.models import Job
from tests.kube.api_kit import JOBS, QUEUES, example, example_text

EXAMPLES = [
    "jobs/nginx-sleep.yaml",
    "jobs/mindspore-cpu.yaml",
    "jobs/tensorflow-dist-mnist.yaml",
    "jobs/test-job-volumes.yaml",
]
URL = JOBS.format(ns="default")


@pytest.fixture
def queue_test(operator: Client) -> None:
    """Create the ``test`` queue nginx-sleep.yaml submits to (from Volcano's example)."""
    response = operator.post(
        QUEUES, example_text("queues/test.yaml"), content_type="application/yaml"
    )
    assert response.status_code == 201, response.content


def post_json(client: Client, url: str, data: Any) -> Any:
    return client.post(url, json.dumps(data), content_type="application/json")


@pytest.mark.parametrize("path", EXAMPLES)
def test_example_job_posted_as_yaml_is_created_and_read_back(
    operator: Client, queue_test: None, path: str
) -> None:
    response = operator.post(URL, example_text(path), content_type="application/yaml")

    assert response.status_code == 201, response.content
    created = response.json()
    name = example(path)["metadata"]["name"]
    assert created["kind"] == "Job"
    assert created["apiVersion"] == "batch.volcano.sh/v1alpha1"
    meta = created["metadata"]
    assert meta["name"] == name
    assert meta["namespace"] == "default"
    assert meta["uid"]
    assert meta["resourceVersion"]
    assert meta["creationTimestamp"]
    assert meta["generation"] == 1
    assert len(created["spec"]["tasks"]) == len(example(path)["spec"]["tasks"])
    got = operator.get(f"{URL}/{name}")
    assert got.status_code == 200
    assert got.json()["metadata"]["uid"] == meta["uid"]


@pytest.mark.parametrize("path", EXAMPLES)
def test_example_job_posted_as_json_is_created(
    operator: Client, queue_test: None, path: str
) -> None:
    response = post_json(operator, URL, example(path))

    assert response.status_code == 201, response.content
    assert Job.objects.filter(name=example(path)["metadata"]["name"]).exists()


def test_dry_run_returns_the_job_and_stores_nothing(operator: Client, queue_test: None) -> None:
    response = post_json(operator, URL + "?dryRun=All", example("jobs/nginx-sleep.yaml"))

    assert response.status_code == 201
    assert response.json()["metadata"]["name"] == "job-1"
    assert not Job.objects.exists()


def test_yaml_that_does_not_parse_is_400_naming_the_line(operator: Client) -> None:
    text = "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: [oops\n"

    response = operator.post(URL, text, content_type="application/yaml")

    assert response.status_code == 400
    assert response.json()["reason"] == "BadRequest"
    assert "line 5" in response.json()["message"] or "line 4" in response.json()["message"]
    assert not Job.objects.exists()


def test_json_that_does_not_parse_is_400_naming_the_line(operator: Client) -> None:
    response = operator.post(URL, '{\n "kind": "Job",\n oops}', content_type="application/json")

    assert response.status_code == 400
    assert "line 3" in response.json()["message"]


def test_namespace_in_body_must_match_the_path(operator: Client, queue_test: None) -> None:
    manifest = example("jobs/nginx-sleep.yaml")
    manifest["metadata"]["namespace"] = "other"

    response = post_json(operator, URL, manifest)

    assert response.status_code == 400
    assert not Job.objects.exists()


@pytest.fixture
def job(operator: Client, queue_test: None) -> dict[str, Any]:
    """Create nginx-sleep's job-1 and return it as the API showed it."""
    response = post_json(operator, URL, example("jobs/nginx-sleep.yaml"))
    assert response.status_code == 201, response.content
    return dict(response.json())


def test_merge_patch_changes_min_available_and_bumps_generation(
    operator: Client, job: dict[str, Any]
) -> None:
    response = operator.patch(
        f"{URL}/job-1",
        json.dumps(
            {"spec": {"tasks": [{**job["spec"]["tasks"][0], "replicas": 3}], "minAvailable": 2}}
        ),
        content_type="application/merge-patch+json",
    )

    assert response.status_code == 200, response.content
    patched = response.json()
    assert patched["spec"]["minAvailable"] == 2
    assert patched["spec"]["tasks"][0]["replicas"] == 3
    assert patched["metadata"]["generation"] == 2
    assert int(patched["metadata"]["resourceVersion"]) > int(job["metadata"]["resourceVersion"])
    stored = Job.objects.get(name="job-1")
    assert stored.min_available == 2
    assert stored.tasks.get().replicas == 3


def test_json_patch_changes_task_replicas(operator: Client, job: dict[str, Any]) -> None:
    patch = [
        {"op": "test", "path": "/spec/tasks/0/name", "value": "nginx"},
        {"op": "replace", "path": "/spec/tasks/0/replicas", "value": 2},
    ]

    response = operator.patch(
        f"{URL}/job-1", json.dumps(patch), content_type="application/json-patch+json"
    )

    assert response.status_code == 200, response.content
    assert Job.objects.get(name="job-1").tasks.get().replicas == 2


def test_patch_of_a_field_volcano_keeps_fixed_is_422_naming_it(
    operator: Client, job: dict[str, Any]
) -> None:
    response = operator.patch(
        f"{URL}/job-1",
        json.dumps({"spec": {"schedulerName": "default-scheduler"}}),
        content_type="application/merge-patch+json",
    )

    assert response.status_code == 422
    causes = response.json()["details"]["causes"]
    assert [c["field"] for c in causes] == ["spec.schedulerName"]
    assert causes[0]["reason"] == "FieldValueForbidden"
    assert Job.objects.get(name="job-1").scheduler_name == "volcano"


def test_replace_with_a_stale_resource_version_is_409(
    operator: Client, job: dict[str, Any]
) -> None:
    stale = dict(job)
    fresh = operator.patch(
        f"{URL}/job-1",
        json.dumps({"spec": {"minAvailable": 1, "priorityClassName": ""}}),
        content_type="application/merge-patch+json",
    )
    operator.patch(
        f"{URL}/job-1",
        json.dumps({"metadata": {"labels": {"team": "a"}}}),
        content_type="application/merge-patch+json",
    )
    assert fresh.status_code == 200

    response = operator.put(f"{URL}/job-1", json.dumps(stale), content_type="application/json")

    assert response.status_code == 409
    assert response.json()["reason"] == "Conflict"


def test_replace_with_the_current_resource_version_succeeds(
    operator: Client, job: dict[str, Any]
) -> None:
    current = operator.get(f"{URL}/job-1").json()
    current["metadata"]["labels"] = {"team": "b"}

    response = operator.put(f"{URL}/job-1", json.dumps(current), content_type="application/json")

    assert response.status_code == 200, response.content
    assert Job.objects.get(name="job-1").labels == {"team": "b"}


def test_status_subresource_changes_only_the_status(operator: Client, job: dict[str, Any]) -> None:
    response = operator.patch(
        f"{URL}/job-1/status",
        json.dumps(
            {"status": {"state": {"phase": "Running"}, "running": 1}, "spec": {"minAvailable": 9}}
        ),
        content_type="application/merge-patch+json",
    )

    assert response.status_code == 200, response.content
    stored = Job.objects.get(name="job-1")
    assert (stored.phase, stored.running, stored.min_available) == ("Running", 1, 1)


def test_main_resource_ignores_status(operator: Client, job: dict[str, Any]) -> None:
    response = operator.patch(
        f"{URL}/job-1",
        json.dumps({"status": {"state": {"phase": "Completed"}}}),
        content_type="application/merge-patch+json",
    )

    assert response.status_code == 200
    assert Job.objects.get(name="job-1").phase != "Completed"


def test_dry_run_delete_keeps_the_job(operator: Client, job: dict[str, Any]) -> None:
    assert operator.delete(f"{URL}/job-1?dryRun=All").status_code == 200
    assert Job.objects.exists()


def test_missing_job_is_404_status(operator: Client) -> None:
    response = operator.get(f"{URL}/nothing")

    assert response.status_code == 404
    assert response.json() | {"message": ""} == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "",
        "reason": "NotFound",
        "code": 404,
        "details": {"name": "nothing", "group": "batch.volcano.sh", "kind": "jobs"},
    }


def test_unknown_api_path_is_404_status(operator: Client) -> None:
    response = operator.get("/apis/batch.volcano.sh/v1alpha1/nothing")

    assert response.status_code == 404
    assert response.json()["kind"] == "Status"
