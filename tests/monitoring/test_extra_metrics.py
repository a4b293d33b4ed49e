"""The series Volcano's dashboards read beside ``volcano_*``: kube-apiserver's request metrics
(``/metrics/apiserver``) and kube-state-metrics' node and pod series
(``/metrics/kube-state-metrics``), with their names, labels and units."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from kube.metrics import RequestKey, parse_request
from tests.scheduler.factories import make_gang, make_node, make_queue


@dataclass(frozen=True)
class Case:
    name: str
    method: str
    path: str
    watch: bool
    key: RequestKey | None


CASES = [
    Case("list pods in a namespace", "GET", "/api/v1/namespaces/default/pods", False,
         RequestKey("LIST", "", "v1", "pods", "", "namespace")),
    Case("get one queue", "GET", "/apis/scheduling.volcano.sh/v1beta1/queues/q1", False,
         RequestKey("GET", "scheduling.volcano.sh", "v1beta1", "queues", "", "resource")),
    Case("watch jobs", "GET", "/apis/batch.volcano.sh/v1alpha1/jobs", True,
         RequestKey("WATCH", "batch.volcano.sh", "v1alpha1", "jobs", "", "cluster")),
    Case("bind a pod", "POST", "/api/v1/namespaces/default/pods/p/binding", False,
         RequestKey("POST", "", "v1", "pods", "binding", "resource")),
    Case("delete a collection", "DELETE", "/api/v1/namespaces/default/pods", False,
         RequestKey("DELETECOLLECTION", "", "v1", "pods", "", "namespace")),
    Case("a console page", "GET", "/queues/", False, None),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_api_requests_get_kube_apiservers_labels(case: Case) -> None:
    assert parse_request(case.method, case.path, watch=case.watch) == case.key


def _scrape(path: str) -> dict[str, list[Any]]:
    response = Client().get(path)
    assert response.status_code == 200
    families: dict[str, list[Any]] = {}
    for family in text_string_to_metric_families(response.content.decode()):
        families.setdefault(family.name, []).extend(family.samples)
    return families


@pytest.mark.django_db
def test_an_api_request_is_counted_by_verb_resource_and_code() -> None:
    Client().get("/api/v1/namespaces/default/pods")  # no credentials: refused, still counted

    families = _scrape("/metrics/apiserver")

    totals = [s for s in families["apiserver_request"] if s.name == "apiserver_request_total"]
    assert any(s.labels["verb"] == "LIST" and s.labels["resource"] == "pods"
               and s.labels["code"] in ("401", "403") for s in totals)  # fmt: skip
    buckets = families["apiserver_request_duration_seconds"]
    assert any(s.labels.get("le") == "60.0" for s in buckets)


@pytest.mark.django_db
def test_kube_state_series_give_nodes_in_cores_and_pods_with_their_queue() -> None:
    make_node("n1", cpu=4, gpu=1)
    make_queue("q1")
    make_gang("g", replicas=1, queue="q1", gpu=1)

    families = _scrape("/metrics/kube-state-metrics")

    capacity = {(s.labels["resource"], s.labels["unit"]): s.value
                for s in families["kube_node_status_capacity"]}  # fmt: skip
    assert capacity[("cpu", "core")] == 4
    assert capacity[("nvidia_com_gpu", "integer")] == 1
    running = families["kube_pod_volcano_container_status_running"]
    assert [(s.labels["pod"], s.labels["queue"], s.value) for s in running] == [
        ("g-task-0", "q1", 0.0)
    ]
    requests = {
        s.labels["resource"] for s in families["kube_pod_volcano_container_resource_requests"]
    }
    assert requests == {"cpu", "memory", "gpu"}  # Volcano's fork names the GPU "gpu"
    phases = {s.labels["phase"]: s.value for s in families["kube_pod_status_phase"]}
    assert phases["Pending"] == 1
