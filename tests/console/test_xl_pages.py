"""The console at scale: pages whose queries do not grow with the rows, and sums that stay
exact (issue 34's fifth target; ``bench/console_xl.py`` times them on the XL cluster)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.models import Namespace, Node, NodeLoadStamp, Pod
from jobs.models import Job
from queues.models import Queue
from queues.why import cluster_allocatable
from scheduler import node_heat

pytestmark = pytest.mark.django_db

GI = 1024**3 * 1000


def _nodes(start: int, count: int) -> None:
    Node.objects.bulk_create(
        Node(name=f"n-{i:05d}", allocatable={"cpu": 64_000, "memory": 256 * GI, "pods": 110_000}
             | ({"nvidia.com/gpu": 8000} if i % 10 == 0 else {}))
        for i in range(start, start + count)
    )  # fmt: skip


def test_the_cluster_total_counts_only_ready_schedulable_nodes_exactly() -> None:
    _nodes(0, 20)
    Node.objects.filter(name="n-00001").update(ready=False)
    Node.objects.filter(name="n-00002").update(unschedulable=True)
    Node.objects.create(name="odd", allocatable={"cpu": 1999})
    # Past SQLite's 64-bit SUM: three nodes holding as much as 20,000 nodes of 256 GiB each.
    Node.objects.bulk_create(
        Node(name=f"huge-{i}", allocatable={"memory": 20_000 * 256 * GI}) for i in range(3)
    )
    assert cluster_allocatable() == {
        "cpu": 18 * 64_000 + 1999,
        "memory": 18 * 256 * GI + 3 * 20_000 * 256 * GI,
        "pods": 18 * 110_000,
        "nvidia.com/gpu": 2 * 8000,
    }


def test_the_overview_asks_as_many_queries_for_many_nodes_and_queues_as_for_few(
    console_login: Callable[..., Any],
) -> None:
    client = console_login("olga", "operator")
    _nodes(0, 5)
    Queue.objects.bulk_create(Queue(name=f"q{i}") for i in range(3))
    client.get("/")
    with CaptureQueriesContext(connection) as few:
        assert client.get("/").status_code == 200
    _nodes(5, 200)
    Queue.objects.bulk_create(Queue(name=f"r{i}") for i in range(40))
    with CaptureQueriesContext(connection) as many:
        assert client.get("/").status_code == 200
    assert len(many) == len(few)


def test_the_zone_heat_map_summed_in_sql_draws_what_the_rows_summed_in_python_drew(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    zone = "topology.kubernetes.io/zone"
    Node.objects.bulk_create(
        Node(name=f"z-{i:04d}", labels={zone: f"zone-{i % 3}"} if i % 7 else {},
             allocatable={"cpu": 16_000 * (1 + i % 3), "memory": 64 * GI, "pods": 110_000}
             | ({"nvidia.com/gpu": 8000} if i % 10 == 0 else {}),
             load_cpu=(i * 700) % 16_000, load_memory=i * GI % (64 * GI), load_pods=i % 9,
             load_gpu=1000 * (i % 2))
        for i in range(300)
    )  # fmt: skip
    NodeLoadStamp.objects.create(pk=1, stored_at=timezone.now())
    for resource in ("cpu", "memory", "nvidia.com/gpu", "pods"):
        in_sql = node_heat._groups(Node.objects.all(), zone, resource)
        with monkeypatch.context() as patch:
            patch.setattr(node_heat, "_group_sums", lambda *args: None)
            in_python = node_heat._groups(Node.objects.all(), zone, resource)
        assert in_sql.groups == in_python.groups
        assert in_sql.group_count == in_python.group_count == 4
        assert in_sql.script == in_python.script


def test_a_job_page_asks_as_many_queries_for_many_bound_pods_as_for_few(
    console_login: Callable[..., Any],
) -> None:
    client = console_login("olga", "operator")
    _nodes(0, 30)
    nodes = list(Node.objects.order_by("name"))

    def job(name: str, pods: int) -> None:
        Namespace.objects.get_or_create(name="default")
        made = Job.objects.create(namespace="default", name=name, phase="Running")
        Pod.objects.bulk_create(
            Pod(namespace="default", name=f"{name}-main-{i}", job=made, task_name="main",
                task_index=i, phase="Running", node=nodes[i % len(nodes)])
            for i in range(pods)
        )  # fmt: skip

    job("small", 3)
    job("large", 150)
    fragment = {"HX-Request": "true", "HX-Target": "job-body"}
    with CaptureQueriesContext(connection) as small:
        assert client.get("/jobs/default/small/", headers=fragment).status_code == 200
    with CaptureQueriesContext(connection) as large:
        response = client.get("/jobs/default/large/", headers=fragment)
    assert len(large) == len(small)
    assert nodes[5].name in response.content.decode()


def test_the_drf_total_of_a_jobs_page_counts_cordoned_ready_nodes_too() -> None:
    _nodes(0, 4)
    Node.objects.filter(name="n-00001").update(unschedulable=True)
    Node.objects.filter(name="n-00002").update(ready=False)
    assert cluster_allocatable(schedulable_only=False)["cpu"] == 3 * 64_000
    assert cluster_allocatable()["cpu"] == 2 * 64_000
