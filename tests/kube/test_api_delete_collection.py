"""``DELETE`` on a collection (Kubernetes' deletecollection): every match goes, in one
transaction, answered with the list of what went; roles, dryRun and the default queue hold."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from core.models import Event, Namespace, Pod
from jobs.models import Job
from queues.models import Queue
from tests.kube.api_kit import EVENTS, JOBS, QUEUES, example, token_client

DEFAULT = JOBS.format(ns="default")


def _create_job(client: Client, name: str, *, namespace: str = "default", app: str = "x") -> None:
    Namespace.objects.get_or_create(name=namespace)  # objects are created in namespaces that exist
    manifest = example("jobs/nginx-sleep.yaml")
    manifest["metadata"] = {"name": name, "labels": {"app": app}}
    manifest["spec"]["queue"] = "default"
    response = client.post(
        JOBS.format(ns=namespace), json.dumps(manifest), content_type="application/json"
    )
    assert response.status_code == 201, response.content


def _job_names(namespace: str = "default") -> list[str]:
    return sorted(Job.objects.filter(namespace=namespace).values_list("name", flat=True))


def _watch_events(client: Client, url: str, version: str) -> list[tuple[str, str]]:
    """Return (type, name) of every change after ``version`` (the watch ends after 1 s)."""
    response: Any = client.get(f"{url}?watch=1&resourceVersion={version}&timeoutSeconds=1")
    lines = b"".join(response.streaming_content).splitlines()
    return [(e["type"], e["object"]["metadata"]["name"]) for e in map(json.loads, lines)]


@pytest.fixture
def jobs(operator: Client) -> None:
    """Jobs a and b labelled app=x, c labelled app=y in default; d labelled app=x in other."""
    _create_job(operator, "a")
    _create_job(operator, "b")
    _create_job(operator, "c", app="y")
    _create_job(operator, "d", namespace="other")


@pytest.mark.usefixtures("jobs")
def test_label_selector_deletes_the_matching_jobs_of_the_namespace_only(operator: Client) -> None:
    response = operator.delete(f"{DEFAULT}?labelSelector=app=x")

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["kind"] == "JobList"
    assert body["apiVersion"] == "batch.volcano.sh/v1alpha1"
    assert [item["metadata"]["name"] for item in body["items"]] == ["a", "b"]
    assert int(body["metadata"]["resourceVersion"]) > 0
    assert _job_names() == ["c"]
    assert _job_names("other") == ["d"]


@pytest.mark.usefixtures("jobs")
def test_delete_collection_without_selector_empties_the_namespace(operator: Client) -> None:
    assert operator.delete(DEFAULT).status_code == 200

    assert _job_names() == []
    assert operator.get(DEFAULT).json()["items"] == []
    assert _job_names("other") == ["d"]


@pytest.mark.usefixtures("jobs")
def test_deleted_jobs_take_their_pods_and_watchers_hear_each_deletion(operator: Client) -> None:
    Pod.objects.create(name="a-nginx-0", job=Job.objects.get(name="a"))
    version = operator.get(DEFAULT).json()["metadata"]["resourceVersion"]
    pods_version = operator.get("/api/v1/namespaces/default/pods").json()["metadata"][
        "resourceVersion"
    ]

    operator.delete(f"{DEFAULT}?labelSelector=app=x")

    assert _watch_events(operator, DEFAULT, version) == [("DELETED", "a"), ("DELETED", "b")]
    assert ("DELETED", "a-nginx-0") in _watch_events(
        operator, "/api/v1/namespaces/default/pods", pods_version
    )
    assert not Pod.objects.filter(name="a-nginx-0").exists()


@pytest.mark.usefixtures("jobs")
def test_dry_run_lists_what_would_go_and_deletes_nothing(operator: Client) -> None:
    response = operator.delete(f"{DEFAULT}?labelSelector=app=x&dryRun=All")

    assert response.status_code == 200
    assert [item["metadata"]["name"] for item in response.json()["items"]] == ["a", "b"]
    assert _job_names() == ["a", "b", "c"]


@pytest.mark.usefixtures("jobs")
def test_viewer_is_403_and_nothing_is_deleted(viewer: Client) -> None:
    response = viewer.delete(DEFAULT)

    assert response.status_code == 403
    assert response.json()["kind"] == "Status"
    assert _job_names() == ["a", "b", "c"]


@pytest.mark.usefixtures("jobs")
def test_submitter_deletes_in_a_granted_namespace_only(submitter: Client) -> None:
    refused = submitter.delete(JOBS.format(ns="other"))
    assert refused.status_code == 403
    assert "other" in refused.json()["message"]
    assert _job_names("other") == ["d"]

    assert submitter.delete(f"{DEFAULT}?labelSelector=app=y").status_code == 200
    assert _job_names() == ["a", "b"]


def test_submitter_may_not_delete_pods_or_events(submitter: Client) -> None:
    for url in ("/api/v1/namespaces/default/pods", EVENTS.format(ns="default")):
        assert submitter.delete(url).status_code == 403


def test_events_are_deleted_by_field_selector(operator: Client) -> None:
    now = timezone.now()
    for name, reason in (("e1", "Scheduled"), ("e2", "Evict"), ("e3", "Scheduled")):
        Event.objects.create(
            name=name,
            involved_kind="Pod",
            involved_name="p",
            reason=reason,
            first_timestamp=now,
            last_timestamp=now,
        )

    response = operator.delete(f"{EVENTS.format(ns='default')}?fieldSelector=reason=Scheduled")

    assert response.status_code == 200
    assert response.json()["kind"] == "EventList"
    assert sorted(Event.objects.values_list("name", flat=True)) == ["e2"]


def test_across_namespaces_is_not_allowed(operator: Client) -> None:
    assert operator.delete("/apis/batch.volcano.sh/v1alpha1/jobs").status_code == 405


def test_bad_selector_is_400_and_deletes_nothing(operator: Client) -> None:
    _create_job(operator, "a")

    response = operator.delete(f"{DEFAULT}?fieldSelector=spec.nothing=1")

    assert response.status_code == 400
    assert _job_names() == ["a"]


def _create_queue(client: Client, name: str) -> None:
    manifest = {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "Queue",
        "metadata": {"name": name, "labels": {"team": "ml"}},
        "spec": {"weight": 1},
    }
    response = client.post(QUEUES, json.dumps(manifest), content_type="application/json")
    assert response.status_code == 201, response.content


def test_default_queue_survives_and_refuses_the_whole_call(operator: Client) -> None:
    _create_queue(operator, "research")

    response = operator.delete(QUEUES)

    assert response.status_code == 403
    assert "`default` queue can not be deleted" in response.json()["message"]
    assert {"default", "research"} <= set(Queue.objects.values_list("name", flat=True))

    around = "metadata.name!=default,metadata.name!=root"
    assert operator.delete(f"{QUEUES}?fieldSelector={around}").status_code == 200
    assert not Queue.objects.filter(name="research").exists()
    assert Queue.objects.filter(name="default").exists()


def test_queues_go_when_the_selector_leaves_the_default_out(operator: Client) -> None:
    _create_queue(operator, "research")
    _create_queue(operator, "batch")

    response = operator.delete(f"{QUEUES}?labelSelector=team=ml")

    assert response.status_code == 200
    assert [item["metadata"]["name"] for item in response.json()["items"]] == ["batch", "research"]
    assert not Queue.objects.filter(name__in=["research", "batch"]).exists()
    assert Queue.objects.filter(name="default").exists()


def test_only_operators_delete_queues(make_user: Callable[..., Any]) -> None:
    submitter = token_client(make_user("sue", "submitter", ("default",)))
    _create_queue(token_client(make_user("oli", "operator")), "research")

    assert submitter.delete(f"{QUEUES}?labelSelector=team=ml").status_code == 403
    assert Queue.objects.filter(name="research").exists()
