"""Lists page through a consistent snapshot with limit/continue, in constant queries."""

from __future__ import annotations

import json
import time
from typing import Any
from unittest import mock

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from jobs.models import Job, TaskSpec
from queues.models import Queue
from tests.kube.api_kit import JOBS, QUEUES, example

URL = JOBS.format(ns="default")


def _store_jobs(count: int, *, prefix: str = "job") -> None:
    """Store ``count`` jobs with one task each (bulk, as a cluster would hold them)."""
    jobs = Job.objects.bulk_create(
        Job(namespace="default", name=f"{prefix}-{index:04d}", queue="default", min_available=1)
        for index in range(count)
    )
    TaskSpec.objects.bulk_create(
        TaskSpec(job=job, index=0, name="main", replicas=1, template={"spec": {}}) for job in jobs
    )


def _page(client: Client, url: str) -> dict[str, Any]:
    response = client.get(url)
    assert response.status_code == 200, response.content
    return dict(response.json())


def test_paging_through_250_jobs_sees_each_once_in_order(operator: Client) -> None:
    _store_jobs(250)
    seen: list[str] = []
    remaining_counts = []
    url = f"{URL}?limit=100"
    while True:
        page = _page(operator, url)
        seen += [item["metadata"]["name"] for item in page["items"]]
        token = page["metadata"].get("continue")
        if not token:
            break
        remaining_counts.append(page["metadata"]["remainingItemCount"])
        url = f"{URL}?limit=100&continue={token}"

    assert seen == [f"job-{index:04d}" for index in range(250)]
    assert remaining_counts == [150, 50]


def test_pages_hold_the_first_pages_snapshot(operator: Client) -> None:
    _store_jobs(250)
    first = _page(operator, f"{URL}?limit=100")
    _store_jobs(3, prefix="aaa-new")  # sorts first: would shift every later page
    _store_jobs(3, prefix="zzz-new")  # sorts last: would appear on the last page
    Job.objects.filter(name="job-0001").delete()  # already served: changes nothing
    seen = [item["metadata"]["name"] for item in first["items"]]
    token = first["metadata"]["continue"]
    while token:
        page = _page(operator, f"{URL}?limit=100&continue={token}")
        seen += [item["metadata"]["name"] for item in page["items"]]
        token = page["metadata"].get("continue")

    assert seen == [f"job-{index:04d}" for index in range(250)]
    assert first["metadata"]["resourceVersion"] == page["metadata"]["resourceVersion"]


def test_continue_token_older_than_five_minutes_is_410(operator: Client) -> None:
    _store_jobs(3)
    token = _page(operator, f"{URL}?limit=1")["metadata"]["continue"]

    with mock.patch("time.time", return_value=time.time() + 301):
        response = operator.get(f"{URL}?limit=1&continue={token}")

    assert response.status_code == 410
    assert response.json()["reason"] == "Expired"


def test_forged_continue_token_is_400(operator: Client) -> None:
    response = operator.get(f"{URL}?limit=1&continue=not-a-token")

    assert response.status_code == 400


@pytest.mark.parametrize("size", [5, 50])
def test_list_query_count_does_not_grow_with_page_size(operator: Client, size: int) -> None:
    _store_jobs(60)
    operator.get(f"{URL}?limit=1")  # warm the token's last-used stamp and the user's caches

    with CaptureQueriesContext(connection) as small:
        assert operator.get(f"{URL}?limit=2").status_code == 200
    with CaptureQueriesContext(connection) as large:
        response = operator.get(f"{URL}?limit={size}")
    assert len(response.json()["items"]) == size

    assert len(large.captured_queries) == len(small.captured_queries)


def test_pod_and_pod_group_lists_are_constant_in_queries_too(operator: Client) -> None:
    manifest = example("jobs/nginx-sleep.yaml")
    manifest["spec"]["queue"] = "default"
    operator.post(URL, json.dumps(manifest), content_type="application/json")
    for index in range(12):
        operator.post(
            "/api/v1/namespaces/default/pods",
            json.dumps(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {
                        "name": f"job-1-nginx-{index}",
                        "namespace": "default",
                        "ownerReferences": [
                            {
                                "apiVersion": "batch.volcano.sh/v1alpha1",
                                "kind": "Job",
                                "name": "job-1",
                                "uid": "00000000-0000-0000-0000-000000000000",
                                "controller": True,
                            }
                        ],
                    },
                    "spec": {"containers": [{"name": "c", "image": "busybox"}], "nodeName": ""},
                }
            ),
            content_type="application/json",
        )
    counts = []
    for limit in (2, 10):
        with CaptureQueriesContext(connection) as queries:
            assert operator.get(f"/api/v1/pods?limit={limit}").status_code == 200
        counts.append(len(queries.captured_queries))

    assert counts[0] == counts[1]


def test_queue_list_shows_the_default_and_root_queues(operator: Client) -> None:
    Queue.objects.create(name="extra")

    names = [item["metadata"]["name"] for item in _page(operator, QUEUES)["items"]]

    assert names == ["default", "extra", "root"]
