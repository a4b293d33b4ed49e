"""Kubeflow jobs in the console: listed with their kind, their page, Submit, delete by role."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from core.namespaces import ensure_namespaces
from queues.models import PodGroup, Queue
from tests.console.compose import composed
from tests.training.kit import pytorch, submit, tick
from training.models import PyTorchJob

pytestmark = pytest.mark.django_db

TEMPLATE = Path(__file__).resolve().parents[2] / "jobs" / "examples" / "pytorchjob-queue-test.yaml"
PAGE = "/kubeflow/pytorchjobs/default/ptj/"


def test_the_jobs_list_shows_training_jobs_with_their_kind_and_podgroup(
    console_login: Callable[..., Any],
) -> None:
    tick(submit(pytorch(workers=2)))
    client = console_login("vera", "viewer", ("default",))
    assert 'hx-get="/kubeflow/"' in client.get("/jobs/").content.decode()  # training's section
    body = composed(client, "/jobs/")
    assert 'id="training-table"' in body
    assert "PyTorchJob" in body
    assert PAGE in body
    assert "Created" in body  # its state


def test_a_viewer_of_another_namespace_does_not_see_it(console_login: Callable[..., Any]) -> None:
    submit(pytorch())
    client = console_login("vera", "viewer", ("team-a",))
    assert "ptj" not in composed(client, "/jobs/")
    assert client.get(PAGE).status_code == 404


def test_the_page_shows_replica_types_the_podgroup_and_why_it_waits(
    console_login: Callable[..., Any],
) -> None:
    Queue.objects.create(name="small", capability={"cpu": 1000})
    tick(submit(pytorch(workers=5, run={"schedulingPolicy": {"queue": "small"}})))
    body = console_login("vera", "viewer", ("default",)).get(PAGE).content.decode()
    assert 'id="replica-types"' in body
    assert "<td>Master</td>" in body
    assert "<td>Worker</td>" in body
    assert "OnFailure" in body
    assert PodGroup.objects.get(name="ptj").min_member == 6
    assert "minMember</dt><dd>6" in body
    assert 'id="why-waiting"' in body
    assert "over its capability" in body


def test_the_submit_page_offers_the_kubeflow_templates_and_submits_one(
    console_login: Callable[..., Any],
) -> None:
    Queue.objects.create(name="test")
    ensure_namespaces(["default"])
    client = console_login("sam", "submitter", ("default",))
    offered = client.get("/submit/?mode=yaml&template=pytorchjob-queue-test").content.decode()
    assert "kind: PyTorchJob" in offered
    response = client.post("/submit/", {"mode": "yaml", "manifest": TEMPLATE.read_text()})
    assert response.status_code == 302
    assert response["Location"] == "/kubeflow/pytorchjobs/default/pytorch-dist-mnist/"
    assert PyTorchJob.objects.filter(name="pytorch-dist-mnist").exists()


def test_a_refused_template_names_the_field_on_the_submit_page(
    console_login: Callable[..., Any],
) -> None:
    client = console_login("sam", "submitter", ("default",))
    response = client.post("/submit/", {"mode": "yaml", "manifest": TEMPLATE.read_text()})
    assert response.status_code == 422  # the queue test does not exist here
    assert "spec.runPolicy.schedulingPolicy.queue" in response.content.decode()
    assert not PyTorchJob.objects.exists()


def test_only_a_submitter_deletes_and_the_controller_cleans_up(
    console_login: Callable[..., Any],
) -> None:
    job = tick(submit(pytorch(workers=1)))
    viewer = console_login("vera", "viewer", ("default",))
    assert viewer.post(PAGE + "delete/").status_code == 403
    assert PyTorchJob.objects.filter(pk=job.pk).exists()
    submitter = console_login("sam", "submitter", ("default",))
    assert submitter.post(PAGE + "delete/").status_code == 302
    assert not PyTorchJob.objects.filter(pk=job.pk).exists()
    tick(job)
    assert not PodGroup.objects.filter(name="ptj").exists()


def test_the_jobs_lists_filters_narrow_its_kubeflow_section(
    console_login: Callable[..., Any],
) -> None:
    tick(submit(pytorch(workers=2)))
    client = console_login("vera", "viewer", ("default",))
    page = client.get("/jobs/?queue=elsewhere").content.decode()
    assert 'hx-get="/kubeflow/?queue=elsewhere"' in page
    assert "ptj" not in composed(client, "/jobs/?queue=elsewhere")
    assert "ptj" in composed(client, "/jobs/?queue=default")
    assert "No Volcano job matches these filters." in composed(client, "/jobs/?queue=default")
