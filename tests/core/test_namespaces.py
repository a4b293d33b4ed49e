"""Namespaces as kube-apiserver keeps them: listed, created, required, and terminated."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from core.models import Namespace, Pod
from jobs.models import Job
from jobs.services import job_submit
from kube.manifests import load_manifest
from tests.kube.api_kit import JOBS
from tests.training.kit import pytorch
from training.models import PyTorchJob

pytestmark = pytest.mark.django_db

NAMESPACES = "/api/v1/namespaces"


def _job(namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
        "metadata": {"name": "train", "namespace": namespace},
        "spec": {"minAvailable": 1, "tasks": [{"name": "m", "replicas": 1, "template": {
            "spec": {"containers": [{"name": "m", "image": "busybox"}]}}}]},
    }  # fmt: skip


def test_default_exists_from_the_first_migrate_and_is_listed(viewer: Client) -> None:
    names = [item["metadata"]["name"] for item in viewer.get(NAMESPACES).json()["items"]]
    assert "default" in names
    assert viewer.get(f"{NAMESPACES}/default").json()["status"]["phase"] == "Active"


def test_creating_in_a_namespace_that_does_not_exist_is_404(operator: Client) -> None:
    response = operator.post(JOBS.format(ns="nowhere"), json.dumps(_job("nowhere")),
                             content_type="application/json")  # fmt: skip
    assert response.status_code == 404
    assert response.json()["message"] == 'namespaces "nowhere" not found'
    assert not Job.objects.exists()


def test_an_operator_creates_a_namespace_then_jobs_in_it(operator: Client) -> None:
    body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}}
    created = operator.post(NAMESPACES, json.dumps(body), content_type="application/json")
    assert created.status_code == 201
    assert created.json()["status"]["phase"] == "Active"
    response = operator.post(JOBS.format(ns="team-a"), json.dumps(_job("team-a")),
                             content_type="application/json")  # fmt: skip
    assert response.status_code == 201


def test_a_submitter_cannot_create_a_namespace(submitter: Client) -> None:
    body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "mine"}}
    assert (
        submitter.post(NAMESPACES, json.dumps(body), content_type="application/json").status_code
        == 403
    )
    assert not Namespace.objects.filter(name="mine").exists()


def test_a_missing_namespace_is_named_before_any_invalid_field(operator: Client) -> None:
    # NamespaceLifecycle admits before the object is read, as in kube-apiserver.
    body = _job("nowhere")
    body["spec"]["minAvailable"] = "three"
    response = operator.post(
        JOBS.format(ns="nowhere"), json.dumps(body), content_type="application/json"
    )
    assert response.status_code == 404
    assert response.json()["message"] == 'namespaces "nowhere" not found'
    assert operator.post(
        JOBS.format(ns="default"), json.dumps({**body, "metadata": {"name": "train"}}),
        content_type="application/json",
    ).status_code == 422  # fmt: skip


def test_deleting_a_namespace_terminates_it_and_everything_in_it(operator: Client) -> None:
    Namespace.objects.create(name="scratch")
    job = job_submit(manifest=_job("scratch"))
    Pod.objects.create(namespace="scratch", name="train-m-0", job=job)
    response = operator.delete(f"{NAMESPACES}/scratch")
    assert response.status_code == 200
    assert response.json()["status"]["phase"] == "Terminating"
    assert operator.get(f"{NAMESPACES}/scratch").status_code == 404
    assert not Job.objects.filter(namespace="scratch").exists()
    assert not Pod.objects.filter(namespace="scratch").exists()


def test_deleting_a_namespace_takes_its_training_jobs_too(operator: Client) -> None:
    # Every namespaced kind an app registered goes with its namespace (the Kubeflow kinds were
    # left behind while the cascade named its models by hand).
    Namespace.objects.create(name="scratch")
    manifest = pytorch("mnist")
    manifest["metadata"]["namespace"] = "scratch"
    loaded = load_manifest(manifest)
    loaded.kind.apply(loaded)
    assert PyTorchJob.objects.filter(namespace="scratch").exists()
    assert operator.delete(f"{NAMESPACES}/scratch").status_code == 200
    assert not PyTorchJob.objects.filter(namespace="scratch").exists()
    assert not Namespace.objects.filter(name="scratch").exists()


def test_default_may_not_be_deleted(operator: Client) -> None:
    response = operator.delete(f"{NAMESPACES}/default")
    assert response.status_code == 403
    assert Namespace.objects.filter(name="default").exists()


def test_manage_apply_creates_the_namespaces_its_manifests_need(tmp_path: Any) -> None:
    from django.core.management import call_command

    manifest = tmp_path / "job.yaml"
    manifest.write_text(json.dumps(_job("from-file")))
    call_command("apply", "-f", str(manifest))
    assert Namespace.objects.filter(name="from-file").exists()
    assert Job.objects.filter(namespace="from-file", name="train").exists()


def test_a_body_without_kind_is_400(operator: Client) -> None:
    body = _job("default")
    del body["kind"]
    response = operator.post(
        JOBS.format(ns="default"), json.dumps(body), content_type="application/json"
    )
    assert response.status_code == 400
    assert "Kind" in response.json()["message"]


def test_a_grant_refers_to_a_namespace_that_exists(django_user_model: Any) -> None:
    from django.core.exceptions import ValidationError

    from accounts.models import NamespaceGrant

    user = django_user_model.objects.create_user("gina")
    with pytest.raises(ValidationError, match="does not exist"):
        NamespaceGrant(user=user, namespace="nowhere").full_clean()
    Namespace.objects.create(name="somewhere")
    NamespaceGrant(user=user, namespace="somewhere").full_clean()  # valid now
