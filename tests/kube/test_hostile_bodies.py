"""Hostile and malformed bodies get a Kubernetes Status, never a 500, and store nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from jobs.models import Job
from tests.apis.yaml_kit import LAUGHS
from tests.kube.api_kit import JOBS

pytestmark = pytest.mark.django_db

URL = JOBS.format(ns="default")


def _job(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
        "metadata": {"name": "hostile", "namespace": "default"},
        "spec": {"minAvailable": 1, "tasks": [{"name": "main", "replicas": 1, "template": {
            "spec": {"containers": [{"name": "main", "image": "busybox"}]}}}], **spec},
    }  # fmt: skip


def _status(response: Any, code: int) -> dict[str, Any]:
    assert response.status_code == code, response.content[:500]
    assert response["Content-Type"].startswith("application/json")
    status: dict[str, Any] = response.json()
    assert (status["kind"], status["code"]) == ("Status", code)
    return status


def test_an_alias_bomb_is_a_400_status(operator: Client) -> None:
    response = operator.post(URL, LAUGHS, content_type="application/yaml")
    assert "aliases" in _status(response, 400)["message"]
    assert not Job.objects.exists()


def test_deep_nesting_is_a_400_status_in_yaml_and_json(operator: Client) -> None:
    deep = "[" * 5000 + "]" * 5000
    _status(operator.post(URL, deep, content_type="application/yaml"), 400)
    _status(operator.post(URL, deep, content_type="application/json"), 400)


def test_an_integer_of_thousands_of_digits_is_a_422_naming_the_field(operator: Client) -> None:
    body = json.dumps(_job()).replace('"minAvailable": 1', '"minAvailable": ' + "9" * 5000)
    status = _status(operator.post(URL, body, content_type="application/json"), 422)
    assert status["details"]["causes"][0]["field"] == "spec.minAvailable"
    assert not Job.objects.exists()


def test_an_infinite_float_is_a_422_naming_the_field(operator: Client) -> None:
    body = json.dumps(_job()).replace('"minAvailable": 1', '"minAvailable": 1e400')
    status = _status(operator.post(URL, body, content_type="application/json"), 422)
    assert status["details"]["causes"][0]["field"] == "spec.minAvailable"


def test_a_body_over_the_limit_is_a_413_status(operator: Client, settings: Any) -> None:
    settings.VOLCANO_MAX_BODY_BYTES = settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 2048
    body = json.dumps(_job(annotations_filler="x" * 4096))
    status = _status(operator.post(URL, body, content_type="application/json"), 413)
    assert "larger than 2048 bytes" in status["message"]
    assert not Job.objects.exists()


def test_manage_apply_refuses_an_alias_bomb_naming_the_file(tmp_path: Any) -> None:
    from django.core.management import CommandError, call_command

    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(LAUGHS)
    with pytest.raises((CommandError, SystemExit)):
        call_command("apply", "-f", str(bomb))
    assert not Job.objects.exists()


def test_the_scheduler_conf_refuses_an_alias_bomb() -> None:
    from apis.errors import ConfError
    from scheduler.engine.conf import load_conf

    with pytest.raises(ConfError, match="aliases"):
        load_conf(LAUGHS)


def _causes(response: Any) -> list[str]:
    status = _status(response, 422)
    return [c["field"] for c in status["details"]["causes"]]


def test_two_billion_replicas_is_a_422_naming_the_task(operator: Client) -> None:
    body = _job()
    body["spec"]["tasks"][0]["replicas"] = 2147483647
    response = operator.post(URL, json.dumps(body), content_type="application/json")
    assert _causes(response) == ["spec.tasks[0].replicas"]
    assert not Job.objects.exists()


@pytest.mark.parametrize(
    ("labels", "field"),
    [
        ({"bad key!": "x"}, "metadata.labels.bad key!"),
        ({"team": "x" * 64}, "metadata.labels.team"),
        ({"/nameless": "x"}, "metadata.labels./nameless"),
    ],
)
def test_bad_labels_are_a_422_naming_the_label(
    operator: Client, labels: dict[str, str], field: str
) -> None:
    body = _job()
    body["metadata"]["labels"] = labels
    response = operator.post(URL, json.dumps(body), content_type="application/json")
    assert _causes(response) == [field]
    assert not Job.objects.exists()


def test_annotations_over_256_kib_are_a_422(operator: Client) -> None:
    body = _job()
    body["metadata"]["annotations"] = {"note": "x" * (256 * 1024)}
    response = operator.post(URL, json.dumps(body), content_type="application/json")
    assert _causes(response) == ["metadata.annotations"]


@pytest.mark.parametrize("cpu", [" 1", "1 ", "lots", "1e400"])
def test_quantities_kubernetes_refuses_are_a_422_naming_the_field(
    operator: Client, cpu: str
) -> None:
    body = _job()
    body["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["resources"] = {
        "requests": {"cpu": cpu}
    }
    response = operator.post(URL, json.dumps(body), content_type="application/json")
    fields = _causes(response)
    assert any("resources.requests.cpu" in f or f.endswith("cpu") for f in fields), fields
    assert not Job.objects.exists()


@pytest.mark.parametrize("name", ["a/b", "a%2Fb", "UPPER", "x" * 300, "nul\x00"])
def test_names_that_cannot_be_a_path_segment_are_a_422(operator: Client, name: str) -> None:
    body = _job()
    body["metadata"]["name"] = name
    response = operator.post(URL, json.dumps(body), content_type="application/json")
    assert response.status_code == 422
    assert not Job.objects.exists()


def test_nobody_creates_a_pod_already_bound_or_moves_one(operator: Client) -> None:
    from core.models import Node, Pod

    Node.objects.create(name="n1", capacity={"cpu": 4000}, allocatable={"cpu": 4000})
    pods = "/api/v1/namespaces/default/pods"
    pod: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"nodeName": "n1", "containers": [{"name": "m", "image": "busybox"}]}}  # fmt: skip
    response = operator.post(pods, json.dumps(pod), content_type="application/json")
    status = _status(response, 422)
    assert status["details"]["causes"][0]["field"] == "spec.nodeName"
    assert not Pod.objects.exists()

    del pod["spec"]["nodeName"]
    created = operator.post(pods, json.dumps(pod), content_type="application/json").json()
    created["spec"]["nodeName"] = "n1"
    moved = operator.put(f"{pods}/p", json.dumps(created), content_type="application/json")
    assert _status(moved, 422)["details"]["causes"][0]["field"] == "spec.nodeName"
    assert Pod.objects.get(name="p").node_id is None


def test_a_namespace_cap_counts_the_jobs_already_there(operator: Client, settings: Any) -> None:
    settings.VOLCANO_MAX_PODS_PER_NAMESPACE = 3
    first = _job()
    first["spec"]["tasks"][0]["replicas"] = 2
    assert operator.post(URL, json.dumps(first), content_type="application/json").status_code == 201
    second = _job()
    second["metadata"]["name"] = "second"
    second["spec"]["tasks"][0]["replicas"] = 2
    response = operator.post(URL, json.dumps(second), content_type="application/json")
    assert _causes(response) == ["spec.tasks[0].replicas"]
    assert list(Job.objects.values_list("name", flat=True)) == ["hostile"]
