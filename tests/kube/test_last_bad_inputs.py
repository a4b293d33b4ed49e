"""The last bad inputs answer as kube-apiserver does: 415 for bodies a custom resource cannot
take, 422 at the container field for a fractional device or limits below requests, and a
400 or 404 ``Status`` (never a 500, on SQLite or PostgreSQL) for a NUL in a path."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from core.models import Pod
from jobs.models import Job
from tests.kube.api_kit import JOBS, PODS, token_client

JOB_URL = JOBS.format(ns="default")
POD_URL = PODS.format(ns="default")


@pytest.fixture
def operator_client(make_user: Callable[..., Any]) -> Client:
    return token_client(make_user("olga", "operator"))


def _job(resources: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
        "metadata": {"name": "j1", "namespace": "default"},
        "spec": {"minAvailable": 1, "tasks": [{"name": "t", "replicas": 1, "template": {
            "spec": {"containers": [{"name": "c", "image": "busybox", "resources": resources}]},
        }}]},
    }  # fmt: skip


def _pod(resources: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p1", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "busybox", "resources": resources}]},
    }  # fmt: skip


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("multipart/form-data; boundary=x", b"--x\r\nContent-Disposition: form-data\r\n\r\n--x--"),
        ("application/vnd.kubernetes.protobuf", b"k8s\x00\x0a\x00"),
    ],
    ids=["multipart", "protobuf"],
)
def test_a_body_a_custom_resource_cannot_take_is_415(
    operator_client: Client, content_type: str, body: bytes
) -> None:
    response = operator_client.post(JOB_URL, body, content_type=content_type)

    assert response.status_code == 415, response.content
    assert response.json()["reason"] == "UnsupportedMediaType"
    assert not Job.objects.exists()


@pytest.mark.parametrize(
    ("section", "field"),
    [
        (
            "requests",
            "spec.tasks[0].template.spec.containers[0].resources.requests[nvidia.com/gpu]",
        ),
        ("limits", "spec.tasks[0].template.spec.containers[0].resources.limits[nvidia.com/gpu]"),
    ],
)
def test_a_fractional_device_is_refused_at_its_field(
    operator_client: Client, section: str, field: str
) -> None:
    response = operator_client.post(
        JOB_URL, json.dumps(_job({section: {"nvidia.com/gpu": "0.5"}})),
        content_type="application/json",
    )  # fmt: skip

    assert response.status_code == 422, response.content
    causes = response.json()["details"]["causes"]
    assert [(c["field"], c["message"]) for c in causes] == [(field, "0.5: must be an integer")]
    assert not Job.objects.exists()


def test_a_bare_pod_is_held_to_the_same_resource_rules(operator_client: Client) -> None:
    fractional = operator_client.post(
        POD_URL, json.dumps(_pod({"limits": {"volcano.sh/gpu-number": "1500m"}})),
        content_type="application/json",
    )  # fmt: skip
    below = operator_client.post(
        POD_URL, json.dumps(_pod({"requests": {"cpu": "2"}, "limits": {"cpu": "1"}})),
        content_type="application/json",
    )  # fmt: skip

    assert fractional.status_code == 422, fractional.content
    assert fractional.json()["details"]["causes"][0]["field"] == (
        "spec.containers[0].resources.limits[volcano.sh/gpu-number]"
    )
    assert below.status_code == 422, below.content
    cause = below.json()["details"]["causes"][0]
    assert cause["field"] == "spec.containers[0].resources.requests"
    assert cause["message"] == "2 cpu: must be less than or equal to cpu limit of 1"
    assert not Pod.objects.exists()


def test_whole_devices_and_fractional_cpus_are_taken(operator_client: Client) -> None:
    resources = {"requests": {"cpu": "500m", "nvidia.com/gpu": "2"}, "limits": {"cpu": "1"}}

    response = operator_client.post(
        JOB_URL, json.dumps(_job(resources)), content_type="application/json"
    )

    assert response.status_code == 201, response.content


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", f"{JOB_URL}/%00"),
        ("put", f"{JOB_URL}/%00"),
        ("delete", f"{JOB_URL}/%00"),
        ("get", "/apis/batch.volcano.sh/v1alpha1/namespaces/%00/jobs"),
        ("post", "/apis/batch.volcano.sh/v1alpha1/namespaces/%00/jobs"),
        ("get", "/api/v1/namespaces/%00"),
        ("delete", "/api/v1/namespaces/%00/pods/p1"),
        ("get", "/apis/scheduling.volcano.sh/v1beta1/queues/%00"),
        ("get", "/api/v1/nodes/a%00b"),
    ],
)
def test_a_nul_in_a_path_is_a_status_never_a_500(
    operator_client: Client, method: str, path: str
) -> None:
    call = getattr(operator_client, method)
    if method in ("put", "post"):
        response = call(path, json.dumps(_job({})), content_type="application/json")
    else:
        response = call(path)

    assert response.status_code in (400, 404), response.content
    assert response.json()["kind"] == "Status"
