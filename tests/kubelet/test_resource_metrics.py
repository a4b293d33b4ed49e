"""``metrics.k8s.io/v1beta1``, what ``kubectl top`` reads: a running simulated container uses
what it requests, a node the sum of its running pods; only running pods and Ready nodes have
metrics, and each reader sees the namespaces the roles give it."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from core.models import Node, Pod, PodPhase
from tests.scheduler.factories import make_node

METRICS = "/apis/metrics.k8s.io/v1beta1"


def _container(name: str, cpu: str | None, memory: str | None) -> dict[str, Any]:
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    return {"name": name, "image": "busybox", "resources": {"requests": requests}}


def _pod(name: str, node: Node | None, *containers: dict[str, Any], namespace: str = "default",
         phase: str = PodPhase.RUNNING, started: bool = True, **fields: Any) -> Pod:  # fmt: skip
    now = timezone.now()
    return Pod.objects.create(
        name=name, namespace=namespace, node=node, phase=phase,
        spec={"containers": list(containers)}, start_time=now if node else None,
        running_since=now if started and phase == PodPhase.RUNNING else None, **fields,
    )  # fmt: skip


@pytest.fixture
def cluster(db: None) -> None:
    busy, quiet = make_node("busy"), make_node("quiet")
    make_node("lost", ready=False)
    _pod("web", busy, _container("app", "500m", "256Mi"), _container("sidecar", "100m", None))
    _pod("batch", busy, _container("main", "2", "1Gi"), namespace="team-b")
    _pod("waiting", busy, _container("main", "1", "1Gi"), phase=PodPhase.PENDING)
    _pod("starting", quiet, _container("main", "1", "1Gi"), started=False)
    _pod("crashing", quiet, _container("main", "1", "1Gi"),
         back_off_until=timezone.now() + timedelta(seconds=10))  # fmt: skip


def test_a_nodes_usage_is_what_its_running_containers_request(
    operator: Client, cluster: None
) -> None:
    answer = operator.get(f"{METRICS}/nodes")

    assert answer.status_code == 200, answer.content
    listed = answer.json()
    assert (listed["kind"], listed["apiVersion"]) == ("NodeMetricsList", "metrics.k8s.io/v1beta1")
    usage = {item["metadata"]["name"]: item["usage"] for item in listed["items"]}
    # busy: web (500m + 100m, 256Mi) and batch (2, 1Gi); the pending pod uses nothing.
    # quiet: one pod not started yet, one in CrashLoopBackOff. lost: NotReady, no metrics.
    assert usage == {
        "busy": {"cpu": "2600m", "memory": "1280Mi"},
        "quiet": {"cpu": "0", "memory": "0"},
    }
    one = operator.get(f"{METRICS}/nodes/busy").json()
    assert (one["kind"], one["window"], one["usage"]) == ("NodeMetrics", "30s", usage["busy"])
    assert operator.get(f"{METRICS}/nodes/lost").status_code == 404


def test_pod_metrics_are_per_container_for_running_pods_only(
    operator: Client, cluster: None
) -> None:
    listed = operator.get(f"{METRICS}/pods").json()["items"]

    assert [(p["metadata"]["namespace"], p["metadata"]["name"]) for p in listed] == [
        ("default", "web"), ("team-b", "batch"),
    ]  # fmt: skip
    web = operator.get(f"{METRICS}/namespaces/default/pods/web").json()
    assert web["containers"] == [
        {"name": "app", "usage": {"cpu": "500m", "memory": "256Mi"}},
        {"name": "sidecar", "usage": {"cpu": "100m", "memory": "0"}},
    ]
    missing = operator.get(f"{METRICS}/namespaces/default/pods/waiting")
    assert missing.status_code == 404
    assert missing.json()["message"] == 'podmetrics.metrics.k8s.io "waiting" not found'


def test_a_viewer_sees_the_usage_of_its_own_namespaces(viewer: Client, cluster: None) -> None:
    everywhere = viewer.get(f"{METRICS}/pods").json()["items"]

    assert [p["metadata"]["name"] for p in everywhere] == ["web"]
    assert viewer.get(f"{METRICS}/namespaces/team-b/pods").status_code == 403
    assert viewer.get(f"{METRICS}/nodes").status_code == 200


def test_selectors_and_anonymous_calls(operator: Client, client: Client, cluster: None) -> None:
    Pod.objects.filter(name="web").update(labels={"app": "web"})

    chosen = operator.get(f"{METRICS}/pods?labelSelector=app%3Dweb").json()["items"]
    bad = operator.get(f"{METRICS}/pods?fieldSelector=spec.schedulerName%3Dvolcano")

    assert [p["metadata"]["name"] for p in chosen] == ["web"]
    assert bad.status_code == 400
    assert client.get(f"{METRICS}/nodes").status_code == 401


def test_discovery_lists_the_metrics_group(operator: Client) -> None:
    groups = {g["name"] for g in operator.get("/apis").json()["groups"]}
    resources = operator.get(f"{METRICS}").json()["resources"]

    assert "metrics.k8s.io" in groups
    assert {(r["name"], r["kind"], r["namespaced"]) for r in resources} == {
        ("nodes", "NodeMetrics", False), ("pods", "PodMetrics", True),
    }  # fmt: skip
