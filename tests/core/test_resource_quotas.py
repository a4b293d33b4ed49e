"""ResourceQuotas through the API: the quota controller's status, kubectl's columns, and the
admission that refuses (403) a pod or object over ``hard`` in kube-apiserver's words."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from django.db.models import F
from django.test import Client
from django.utils import timezone

from core.models import Pod, PodPhase
from core.quota import reconcile_quotas
from tests.kube.api_kit import PODS

pytestmark = pytest.mark.django_db

JSON = "application/json"
QUOTAS = "/api/v1/namespaces/default/resourcequotas"
CONFIG_MAPS = "/api/v1/namespaces/default/configmaps"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"


def _post(client: Client, path: str, body: Any) -> Any:
    return client.post(path, json.dumps(body), content_type=JSON)


def _quota(client: Client, hard: dict[str, str], name: str = "q1") -> Any:
    body = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": name},
        "spec": {"hard": hard},
    }
    return _post(client, QUOTAS, body)


def _pod(client: Client, name: str, cpu: str = "", *, limits: dict[str, str] | None = None) -> Any:
    resources: dict[str, Any] = {}
    if cpu:
        resources["requests"] = {"cpu": cpu}
    if limits:
        resources["limits"] = limits
    body = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "main", "image": "busybox", "resources": resources}]},
    }
    return _post(client, PODS.format(ns="default"), body)


def _status(client: Client, name: str = "q1") -> dict[str, Any]:
    reconcile_quotas(timezone.now())
    answer = client.get(f"{QUOTAS}/{name}")
    assert answer.status_code == 200, answer.content
    return dict(answer.json()["status"])


def test_a_pod_over_hard_is_refused_with_kube_apiservers_message(operator: Client) -> None:
    assert _quota(operator, {"requests.cpu": "4", "pods": "10"}).status_code == 201
    assert _pod(operator, "a", "1").status_code == 201
    assert _pod(operator, "b", "2").status_code == 201

    refused = _pod(operator, "x", "2")

    assert refused.status_code == 403, refused.content
    status = refused.json()
    assert status["reason"] == "Forbidden"
    assert status["message"] == (
        'pods "x" is forbidden: exceeded quota: q1, requested: requests.cpu=2, '
        "used: requests.cpu=3, limited: requests.cpu=4"
    )
    assert status["details"] == {"name": "x", "kind": "pods"}
    assert not Pod.objects.filter(name="x").exists()
    assert _pod(operator, "c", "1").status_code == 201  # exactly up to hard


def test_a_quota_on_limits_wants_every_container_to_set_them(operator: Client) -> None:
    _quota(operator, {"limits.cpu": "2", "limits.memory": "1Gi"})

    refused = _pod(operator, "bare", "1")
    allowed = _pod(operator, "set", limits={"cpu": "1", "memory": "512Mi"})

    assert refused.status_code == 403
    assert refused.json()["message"] == (
        'pods "bare" is forbidden: failed quota: q1: must specify limits.cpu for: main; '
        "limits.memory for: main"
    )
    assert allowed.status_code == 201, allowed.content


def test_the_controller_keeps_hard_and_used_current(operator: Client) -> None:
    hard = {"pods": "3", "count/pods": "5", "requests.cpu": "4", "cpu": "4",
            "limits.memory": "2Gi", "requests.nvidia.com/gpu": "2"}  # fmt: skip
    _quota(operator, hard)
    status = _status(operator)
    assert status["hard"] == hard
    assert status["used"] == dict.fromkeys(hard, "0")

    _pod(operator, "a", "1500m", limits={"memory": "1Gi", "nvidia.com/gpu": "1"})
    # A quota on limits.memory wants every container to set one.
    assert _pod(operator, "b", "500m").status_code == 403
    _pod(operator, "b", "500m", limits={"memory": "512Mi"})
    status = _status(operator)
    assert status["used"] == {"pods": "2", "count/pods": "2", "requests.cpu": "2", "cpu": "2",
                              "limits.memory": "1536Mi", "requests.nvidia.com/gpu": "1"}  # fmt: skip

    # An ended pod uses no compute any more, yet still counts as a stored pod.
    # (As the kubelet writes it: a new resourceVersion, which the controller notices.)
    Pod.objects.filter(name="a").update(
        phase=PodPhase.SUCCEEDED, resource_version=F("resource_version") + 1
    )
    status = _status(operator)
    assert status["used"]["requests.cpu"] == "500m"
    assert (status["used"]["pods"], status["used"]["count/pods"]) == ("1", "2")
    assert status["used"]["requests.nvidia.com/gpu"] == "0"

    assert operator.delete(f"{PODS.format(ns='default')}/b").status_code == 200
    assert _status(operator)["used"]["pods"] == "0"


def test_object_counts_refuse_one_more_config_map(operator: Client) -> None:
    _quota(operator, {"count/configmaps": "1"})
    first = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c1"}, "data": {}}

    assert _post(operator, CONFIG_MAPS, first).status_code == 201
    refused = _post(operator, CONFIG_MAPS, {**first, "metadata": {"name": "c2"}})

    assert refused.status_code == 403
    assert refused.json()["message"] == (
        'configmaps "c2" is forbidden: exceeded quota: q1, requested: count/configmaps=1, '
        "used: count/configmaps=1, limited: count/configmaps=1"
    )
    assert _status(operator)["used"] == {"count/configmaps": "1"}


def test_kubectl_get_quota_columns(operator: Client) -> None:
    _quota(operator, {"pods": "3", "requests.cpu": "4", "limits.memory": "8Gi"})
    _pod(operator, "a", "1", limits={"memory": "1Gi"})
    reconcile_quotas(timezone.now())

    table = operator.get(QUOTAS, headers={"accept": TABLE}).json()

    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Age", "Request", "Limit"]
    (row,) = table["rows"]
    assert row["cells"][0] == "q1"
    assert row["cells"][2:] == ["pods: 1/3, requests.cpu: 1/4", "limits.memory: 1Gi/8Gi"]


@pytest.mark.parametrize(
    ("hard", "field", "message"),
    [
        ({"gpus": "1"}, "spec.hard[gpus]", "must be a standard resource for quota"),
        ({"pods": "1.5"}, "spec.hard[pods]", "must be an integer"),
        ({"requests.cpu": "-1"}, "spec.hard[requests.cpu]", "must be greater than or equal to 0"),
        ({"requests.cpu": "lots"}, "spec.hard[requests.cpu]", "expected a number"),
    ],
)
def test_kube_apiserver_validation(
    operator: Client, hard: dict[str, str], field: str, message: str
) -> None:
    answer = _quota(operator, hard)

    assert answer.status_code == 422, answer.content
    (cause,) = answer.json()["details"]["causes"]
    assert cause["field"] == field
    assert message in cause["message"]


def test_scopes_are_refused_by_name(operator: Client) -> None:
    body = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "scoped"},
        "spec": {"hard": {"pods": "1"}, "scopes": ["BestEffort"]},
    }

    answer = _post(operator, QUOTAS, body)

    assert answer.status_code == 422
    assert answer.json()["details"]["causes"][0]["field"] == "spec.scopes"


def test_an_idle_pass_counts_nothing_until_the_recount_is_due(operator: Client) -> None:
    _quota(operator, {"requests.cpu": "4"})
    _pod(operator, "a", "1")
    now = timezone.now()
    assert reconcile_quotas(now) == 1

    # A change no resourceVersion shows (a deletion's grace running out changes no row).
    Pod.objects.filter(name="a").update(phase=PodPhase.FAILED)

    assert reconcile_quotas(now + dt.timedelta(seconds=1)) == 0
    assert reconcile_quotas(now + dt.timedelta(seconds=11)) == 1
    assert _status(operator)["used"] == {"requests.cpu": "0"}
