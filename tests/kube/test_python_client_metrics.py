"""A job's series on ``/metrics`` follow the job, seen as a user's script sees them: the job is
made and deleted with the official ``kubernetes`` client, ``/metrics`` read over plain HTTP as
Prometheus reads it.

Volcano's scheduler sets ``volcano_e2e_job_scheduling_duration`` (creation to the latest
placement), its start and last times, and ``volcano_job_share`` for a running job, and its
cache deletes them all (``DeleteJobMetrics``) when the job goes.
"""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client, config  # type: ignore[import-untyped]
from kubernetes.client.rest import ApiException  # type: ignore[import-untyped]
from prometheus_client.parser import text_string_to_metric_families

from tests.kube.server_kit import KubeServer, wait_for

GROUP, VERSION, PLURAL = "batch.volcano.sh", "v1alpha1", "jobs"
NAMESPACE = "py-metrics"
PER_JOB = (
    "volcano_e2e_job_scheduling_duration",
    "volcano_e2e_job_scheduling_start_time",
    "volcano_e2e_job_scheduling_last_time",
)


@pytest.fixture
def api(kube_server: KubeServer) -> Iterator[client.ApiClient]:
    """Return an API client made from the user's kubeconfig, with the namespace made."""
    with config.new_client_from_config(config_file=str(kube_server.kubeconfig)) as api_client:
        try:
            client.CoreV1Api(api_client).create_namespace(
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
            )
        except ApiException as exc:
            if exc.status != 409:  # already there (another test of the package made it)
                raise
        yield api_client


def _job(name: str) -> dict[str, Any]:
    container = {"name": "main", "image": "busybox", "command": ["sleep", "1h"],
                 "resources": {"requests": {"cpu": "1", "memory": "256Mi"}}}  # fmt: skip
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "Job",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "minAvailable": 2,
            "schedulerName": "volcano",
            "queue": "default",
            "tasks": [{"name": "worker", "replicas": 2,
                       "template": {"spec": {"containers": [container],
                                             "restartPolicy": "Never"}}}],
        },
    }  # fmt: skip


def _scrape(server: KubeServer) -> list[tuple[str, dict[str, str], float]]:
    with urllib.request.urlopen(server.url + "/metrics", timeout=30) as response:
        text = response.read().decode()
    return [
        (sample.name, dict(sample.labels), float(sample.value))
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    ]


def _of_job(
    samples: list[tuple[str, dict[str, str], float]], job: str, *, group: str = ""
) -> dict[str, Any]:
    """Return the job's per-job series: name -> (labels, value); the job's PodGroup is
    ``<job>-<uid>`` (or ``group``), the name Volcano's scheduler labels them with."""
    out: dict[str, Any] = {}
    for name, labels, value in samples:
        named = labels.get("job_name") or labels.get("job_id") or ""
        namespace = labels.get("job_namespace") or labels.get("job_ns") or NAMESPACE
        mine = named == group if group else named.startswith(f"{job}-")
        if mine and namespace == NAMESPACE:
            out[name] = (labels, value)
    return out


def test_a_deleted_jobs_series_disappear_and_its_duration_is_not_zero(
    api: client.ApiClient, kube_server: KubeServer
) -> None:
    jobs = client.CustomObjectsApi(api)
    jobs.create_namespaced_custom_object(GROUP, VERSION, NAMESPACE, PLURAL, _job("metered"))
    wait_for(lambda: [
        p for p in client.CoreV1Api(api).list_namespaced_pod(NAMESPACE).items
        if p.metadata.name.startswith("metered-") and p.spec.node_name
    ])  # fmt: skip

    series = wait_for(
        lambda: (
            (s := _of_job(_scrape(kube_server), "metered"))
            and {*PER_JOB, "volcano_job_share"} <= set(s)
            and s
        )
    )

    labels, duration = series["volcano_e2e_job_scheduling_duration"]
    assert labels["queue"] == "default"
    assert labels["job_namespace"] == NAMESPACE
    # both pods placed in one session: creation to that session's placement, never 0
    assert 0 < duration < 60_000
    _labels, start = series["volcano_e2e_job_scheduling_start_time"]
    _labels, last = series["volcano_e2e_job_scheduling_last_time"]
    assert last > start > 0
    _labels, share = series["volcano_job_share"]
    assert 0 < share <= 1

    jobs.delete_namespaced_custom_object(
        GROUP, VERSION, NAMESPACE, PLURAL, "metered", propagation_policy="Background"
    )

    gone = wait_for(lambda: not _of_job(_scrape(kube_server), "metered") or None)
    assert gone


def test_a_pod_placed_in_its_first_session_reports_a_real_duration_until_deleted(
    api: client.ApiClient, kube_server: KubeServer
) -> None:
    core = client.CoreV1Api(api)
    pod = core.create_namespaced_pod(NAMESPACE, {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "solo"},
        "spec": {"schedulerName": "volcano", "restartPolicy": "Never", "containers": [
            {"name": "main", "image": "busybox", "command": ["sleep", "1h"],
             "resources": {"requests": {"cpu": "1", "memory": "256Mi"}}}]},
    })  # fmt: skip
    group = f"podgroup-{pod.metadata.uid}"  # the group Volcano's controller gives a bare pod
    wait_for(lambda: core.read_namespaced_pod("solo", NAMESPACE).spec.node_name)

    # its group is made, enqueued and placed in one session: creation to placement, not 0
    series = wait_for(lambda: _of_job(_scrape(kube_server), "", group=group).get(
        "volcano_e2e_job_scheduling_duration"))  # fmt: skip
    labels, duration = series
    assert labels["job_name"] == group
    assert duration > 0

    core.delete_namespaced_pod("solo", NAMESPACE, grace_period_seconds=0)

    assert wait_for(lambda: not _of_job(_scrape(kube_server), "", group=group) or None)
