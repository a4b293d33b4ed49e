"""``/api/v1/namespaces/{ns}/secrets``: the ssh keys are readable by who may use them, only."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from core.models import Secret
from jobs.models import Job
from tests.jobs.controller_kit import start, submit, task
from tests.kube.api_kit import PODS, token_client

SECRETS = "/api/v1/namespaces/{ns}/secrets"


@pytest.fixture
def ssh_job(db: None) -> Job:
    """Return a running job of two pods with the ssh plugin, in ``default``."""
    job = submit("mpi", tasks=[task("worker", 2)], plugins={"ssh": []})
    start(job)
    return job


def test_no_pod_answer_contains_the_private_key(ssh_job: Job, operator: Client) -> None:
    listed = operator.get(PODS.format(ns="default"))
    one = operator.get(f"{PODS.format(ns='default')}/mpi-worker-0")
    every = operator.get("/api/v1/pods")

    for response in (listed, one, every):
        assert response.status_code == 200
        assert "PRIVATE KEY" not in response.content.decode()
        assert "ssh.volcano.sh/" not in response.content.decode()
    volumes = one.json()["spec"]["volumes"]
    assert {"secretName": "mpi-ssh"}.items() <= volumes[-1]["secret"].items()


def test_operator_reads_the_secret_with_base64_data_and_its_owner(
    ssh_job: Job, operator: Client
) -> None:
    response = operator.get(f"{SECRETS.format(ns='default')}/mpi-ssh")

    assert response.status_code == 200
    body = response.json()
    assert (body["apiVersion"], body["kind"], body["type"]) == ("v1", "Secret", "Opaque")
    assert set(body["data"]) == {"authorized_keys", "config", "id_rsa", "id_rsa.pub"}
    assert b"PRIVATE KEY" in base64.b64decode(body["data"]["id_rsa"])
    owner = body["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["name"], owner["uid"]) == ("Job", "mpi", str(ssh_job.uid))
    assert body["metadata"]["namespace"] == "default"


def test_submitter_granted_the_namespace_reads_and_lists_it(
    ssh_job: Job, submitter: Client
) -> None:
    one = submitter.get(f"{SECRETS.format(ns='default')}/mpi-ssh")
    listed = submitter.get(SECRETS.format(ns="default"))

    assert one.status_code == 200
    assert listed.status_code == 200
    assert [item["metadata"]["name"] for item in listed.json()["items"]] == ["mpi-ssh"]
    assert listed.json()["kind"] == "SecretList"


def test_viewer_is_refused_secrets_though_it_reads_the_pods(ssh_job: Job, viewer: Client) -> None:
    assert viewer.get(f"{PODS.format(ns='default')}/mpi-worker-0").status_code == 200

    for url in (f"{SECRETS.format(ns='default')}/mpi-ssh", SECRETS.format(ns="default")):
        response = viewer.get(url)
        assert response.status_code == 403
        assert response.json()["reason"] == "Forbidden"
        assert "PRIVATE KEY" not in response.content.decode()
    assert viewer.get("/api/v1/secrets").status_code == 403


def test_submitter_of_another_namespace_cannot_read_it(
    ssh_job: Job, make_user: Callable[..., Any]
) -> None:
    other = token_client(make_user("otto", "submitter", ("other",)))

    assert other.get(f"{SECRETS.format(ns='default')}/mpi-ssh").status_code == 403
    assert other.get(SECRETS.format(ns="default")).status_code == 403
    across = other.get("/api/v1/secrets")
    assert across.status_code == 200
    assert across.json()["items"] == []


def test_anonymous_is_401(ssh_job: Job) -> None:
    assert Client().get(SECRETS.format(ns="default")).status_code == 401


def test_missing_secret_is_404(ssh_job: Job, operator: Client) -> None:
    response = operator.get(f"{SECRETS.format(ns='default')}/nope")
    assert response.status_code == 404
    assert response.json()["details"]["kind"] == "secrets"


def test_discovery_lists_secrets_in_core_v1(operator: Client) -> None:
    resources = operator.get("/api/v1").json()["resources"]
    secret = next(r for r in resources if r["name"] == "secrets")
    assert secret["kind"] == "Secret"
    assert secret["namespaced"] is True
    assert "create" not in secret["verbs"]


def test_deleting_the_job_through_the_api_deletes_its_secret(
    ssh_job: Job, operator: Client
) -> None:
    url = f"{SECRETS.format(ns='default')}/mpi-ssh"
    assert operator.get(url).status_code == 200

    deleted = operator.delete("/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs/mpi")

    assert deleted.status_code == 200
    assert operator.get(url).status_code == 404
    assert not Secret.objects.exists()
