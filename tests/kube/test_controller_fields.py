"""Fields only controllers write: a status sent through the main endpoint is not stored."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from core.models import Pod
from jobs.models import Job
from tests.kube.api_kit import JOBS

pytestmark = pytest.mark.django_db

PODS = "/api/v1/namespaces/default/pods"


def _pod(**status: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "m", "image": "busybox"}]}, "status": status}  # fmt: skip


def test_a_pods_status_sent_on_create_or_update_is_not_stored(operator: Client) -> None:
    created = operator.post(
        PODS, json.dumps(_pod(phase="Succeeded")), content_type="application/json"
    )
    assert created.status_code == 201
    assert Pod.objects.get(name="p").phase == "Pending"  # the kubelet's to say, not the client's
    body = created.json()
    body["status"] = {"phase": "Failed"}
    body["metadata"]["labels"] = {"touched": "yes"}
    updated = operator.put(f"{PODS}/p", json.dumps(body), content_type="application/json")
    assert updated.status_code == 200
    pod = Pod.objects.get(name="p")
    assert (pod.phase, pod.labels) == ("Pending", {"touched": "yes"})


def test_the_status_subresource_is_for_operators_and_controllers(
    operator: Client, submitter: Client
) -> None:
    body = operator.post(PODS, json.dumps(_pod()), content_type="application/json").json()
    body["status"] = {"phase": "Running"}
    refused = submitter.put(f"{PODS}/p/status", json.dumps(body), content_type="application/json")
    assert refused.status_code == 403
    assert Pod.objects.get(name="p").phase == "Pending"
    written = operator.put(f"{PODS}/p/status", json.dumps(body), content_type="application/json")
    assert written.status_code == 200
    assert Pod.objects.get(name="p").phase == "Running"


def test_a_jobs_status_sent_through_the_main_endpoint_is_not_stored(submitter: Client) -> None:
    job = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
           "metadata": {"name": "j", "namespace": "default"},
           "spec": {"minAvailable": 1, "tasks": [{"name": "m", "replicas": 1, "template": {
               "spec": {"containers": [{"name": "m", "image": "busybox"}]}}}]},
           "status": {"state": {"phase": "Completed"}, "succeeded": 1}}  # fmt: skip
    response = submitter.post(
        JOBS.format(ns="default"), json.dumps(job), content_type="application/json"
    )
    assert response.status_code == 201
    stored = Job.objects.get(name="j")
    assert (stored.phase, stored.succeeded) == ("", 0)
