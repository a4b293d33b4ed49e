"""``kubectl get secrets --watch``: Secret writes are on the change stream, for who may read them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from core.models import Secret
from jobs.models import Job
from tests.jobs.controller_kit import start, submit, task
from tests.kube.api_kit import JOBS, token_client, watch_events

URL = "/api/v1/namespaces/default/secrets"


def _ssh_job() -> Job:
    job = submit("mpi", tasks=[task("worker", 2)], plugins={"ssh": []})
    start(job)
    return job


@pytest.mark.django_db
def test_watch_hears_the_ssh_secret_added_modified_and_deleted(operator: Client) -> None:
    submit("plain")  # the stream is not empty: a watch from version 0 would list first
    version = operator.get(URL).json()["metadata"]["resourceVersion"]
    assert version != "0"
    job = _ssh_job()
    events = watch_events(operator.get(f"{URL}?watch=1&resourceVersion={version}&timeoutSeconds=5"))

    added = next(events)
    assert (added["type"], added["object"]["kind"]) == ("ADDED", "Secret")
    assert added["object"]["metadata"]["name"] == "mpi-ssh"
    assert "id_rsa" in added["object"]["data"]

    secret = Secret.objects.get(name="mpi-ssh")
    secret.data = Secret.encode({"config": "StrictHostKeyChecking no\n"})
    secret.save()
    modified = next(events)
    assert modified["type"] == "MODIFIED"
    assert list(modified["object"]["data"]) == ["config"]
    assert int(modified["object"]["metadata"]["resourceVersion"]) > int(
        added["object"]["metadata"]["resourceVersion"]
    )

    gone = operator.delete(f"{JOBS.format(ns='default')}/{job.name}")
    assert gone.status_code == 200
    deleted = next(events)
    assert (deleted["type"], deleted["object"]["metadata"]["name"]) == ("DELETED", "mpi-ssh")
    assert deleted["object"]["kind"] == "Secret"


@pytest.mark.django_db
def test_watch_without_a_version_starts_with_the_secrets_there_are(operator: Client) -> None:
    _ssh_job()

    events = list(watch_events(operator.get(f"{URL}?watch=true&timeoutSeconds=1")))

    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("ADDED", "mpi-ssh")]


@pytest.mark.django_db
def test_viewer_may_not_watch_secrets(viewer: Client) -> None:
    _ssh_job()

    for url in (f"{URL}?watch=1", "/api/v1/secrets?watch=1"):
        response = viewer.get(url)
        assert response.status_code == 403
        assert response.json()["reason"] == "Forbidden"
        assert "PRIVATE KEY" not in response.content.decode()


@pytest.mark.django_db
def test_submitter_of_another_namespace_hears_no_secret_of_default(
    make_user: Callable[..., Any],
) -> None:
    other = token_client(make_user("otto", "submitter", ("other",)))
    submit("plain")
    version = other.get("/api/v1/secrets").json()["metadata"]["resourceVersion"]
    _ssh_job()

    assert other.get(f"{URL}?watch=1").status_code == 403
    across = other.get(f"/api/v1/secrets?watch=1&resourceVersion={version}&timeoutSeconds=1")
    assert list(watch_events(across)) == []
