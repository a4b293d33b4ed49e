"""A queue's guarantee is reserved for it, seen through the official ``kubernetes`` client.

Volcano's e2e "Guarantee reserved resource" cases (test/e2e/schedulingaction/guarantee.go) on a
server of its own: one node of 2 CPUs and 2Gi, the scheduler configuration Volcano's e2e runs
with (every action; priority, gang, conformance, drf, predicates, the queue plugin, nodeorder,
binpack), once with ``capacity`` and once with ``proportion``. ``queue1`` guarantees (and
deserves, as the e2e helper sets) part of the node and holds no job; ``queue2``'s jobs may use
what the guarantee leaves unreserved and never more, even on an idle node.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client, config  # type: ignore[import-untyped]
from kubernetes.client.rest import ApiException  # type: ignore[import-untyped]

from tests.kube.server_kit import KubeServer, serve, wait_for

NAMESPACE = "guarantee"
BATCH = ("batch.volcano.sh", "v1alpha1")
SCHEDULING = ("scheduling.volcano.sh", "v1beta1")
NODE = {"cpu": "2", "memory": "2Gi", "pods": "110"}
WHOLE_NODE = {"cpu": "2000m", "memory": "2048Mi"}
HALF_NODE = {"cpu": "1000m", "memory": "1024Mi"}
# Volcano's e2e scheduler configuration (the chart's volcano-scheduler-ci.conf, less the plugins
# that play no part here), with the queue plugin under test.
E2E_CONF = """\
actions: "enqueue, allocate, preempt, reclaim, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
- plugins:
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: {plugin}
  - name: nodeorder
  - name: binpack
"""
QUEUE_PLUGINS = ("capacity", "proportion")


@pytest.fixture(scope="module")
def guarantee_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeServer]:
    """Start a server with the namespace and one 2-CPU, 2Gi node."""
    with serve(tmp_path_factory.mktemp("guarantee-server")) as server:
        server.json("POST", "/api/v1/namespaces",
                    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})  # fmt: skip
        server.json("POST", "/api/v1/nodes",
                    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-2cpu"},
                     "status": {"capacity": NODE, "allocatable": NODE}})  # fmt: skip
        yield server


@pytest.fixture
def api(guarantee_server: KubeServer) -> Iterator[client.ApiClient]:
    """Return an API client made from the operator's kubeconfig, as a user's script makes it."""
    kubeconfig = str(guarantee_server.kubeconfig)
    with config.new_client_from_config(config_file=kubeconfig) as api_client:
        yield api_client


@pytest.fixture
def objects(api: client.ApiClient) -> Iterator[client.CustomObjectsApi]:
    """Return the custom objects API; delete the test's jobs, then its queues, afterwards."""
    custom = client.CustomObjectsApi(api)
    yield custom
    for job in custom.list_namespaced_custom_object(*BATCH, NAMESPACE, "jobs")["items"]:
        custom.delete_namespaced_custom_object(*BATCH, NAMESPACE, "jobs", job["metadata"]["name"])
    core = client.CoreV1Api(api)
    wait_for(lambda: not core.list_namespaced_pod(NAMESPACE).items)
    for name in ("queue1", "queue2"):
        try:
            custom.delete_cluster_custom_object(*SCHEDULING, "queues", name)
        except ApiException as error:
            if error.status != 404:
                raise


def use_conf(custom: client.CustomObjectsApi, plugin: str) -> None:
    """Make the e2e configuration with ``plugin`` the scheduler's active one."""
    body = {
        "apiVersion": "scheduler.volcano.sh/v1alpha1",
        "kind": "SchedulerConfiguration",
        "spec": {"conf": E2E_CONF.format(plugin=plugin), "comment": f"e2e with {plugin}"},
    }
    active = custom.replace_cluster_custom_object(
        "scheduler.volcano.sh", "v1alpha1", "schedulerconfigurations", "active", body
    )
    assert f"name: {plugin}" in active["spec"]["conf"]


def create_queue(
    custom: client.CustomObjectsApi, name: str, guarantee: dict[str, str] | None = None
) -> None:
    """Create a queue of weight 1; with a guarantee it deserves the same (Volcano's e2e helper)."""
    spec: dict[str, Any] = {"weight": 1}
    if guarantee:
        spec |= {"guarantee": {"resource": guarantee}, "deserved": guarantee}
    custom.create_cluster_custom_object(
        *SCHEDULING, "queues",
        {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
         "metadata": {"name": name}, "spec": spec},
    )  # fmt: skip


def create_job(custom: client.CustomObjectsApi, name: str, cpu: str, memory: str) -> None:
    """Create a one-pod Volcano job in ``queue2`` (minAvailable 1), as the e2e JobSpec makes it."""
    container = {"name": "nginx", "image": "nginx",
                 "resources": {"requests": {"cpu": cpu, "memory": memory}}}  # fmt: skip
    custom.create_namespaced_custom_object(
        *BATCH, NAMESPACE, "jobs",
        {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": name},
         "spec": {"schedulerName": "volcano", "queue": "queue2", "minAvailable": 1,
                  "tasks": [{"name": "task", "replicas": 1,
                             "template": {"spec": {"containers": [container]}}}]}},
    )  # fmt: skip


def job_phase(custom: client.CustomObjectsApi, name: str) -> str:
    job = custom.get_namespaced_custom_object(*BATCH, NAMESPACE, "jobs", name)
    return str(job.get("status", {}).get("state", {}).get("phase", ""))


def unschedulable_group(custom: client.CustomObjectsApi, job: str) -> dict[str, Any] | None:
    """Return the job's PodGroup once a session has looked at it and left it unschedulable."""
    groups = custom.list_namespaced_custom_object(*SCHEDULING, NAMESPACE, "podgroups")["items"]
    for group in groups:
        owners = group["metadata"].get("ownerReferences") or []
        if not any(o["kind"] == "Job" and o["name"] == job for o in owners):
            continue
        conditions = group.get("status", {}).get("conditions") or []
        if any(c["type"] == "Unschedulable" and c["status"] == "True" for c in conditions):
            return dict(group)
    return None


def assert_left_pending(api: client.ApiClient, custom: client.CustomObjectsApi, job: str) -> None:
    """Wait until the scheduler has passed over ``job``; it must be Pending with no pod placed."""
    group = wait_for(lambda: unschedulable_group(custom, job))
    # Not admitted by enqueue, so (as in Volcano) the controller has not even made its pod.
    assert group["status"]["phase"] == "Pending"
    assert job_phase(custom, job) == "Pending"
    pods = client.CoreV1Api(api).list_namespaced_pod(NAMESPACE).items
    assert not [p.metadata.name for p in pods if p.metadata.name.startswith(f"{job}-")]


@pytest.mark.parametrize("plugin", QUEUE_PLUGINS)
def test_a_guarantee_of_the_whole_node_keeps_another_queues_job_pending(
    api: client.ApiClient, objects: client.CustomObjectsApi, plugin: str
) -> None:
    use_conf(objects, plugin)
    create_queue(objects, "queue1", WHOLE_NODE)
    create_queue(objects, "queue2")

    create_job(objects, "queue2-job", "500m", "512Mi")

    # The node is idle, yet every bit of it is reserved for queue1 (which runs nothing).
    assert_left_pending(api, objects, "queue2-job")
    # It was the guarantee that held the job: without it, the same job runs.
    objects.patch_cluster_custom_object(
        *SCHEDULING, "queues", "queue1", {"spec": {"guarantee": None, "deserved": None}}
    )
    wait_for(lambda: job_phase(objects, "queue2-job") == "Running")


@pytest.mark.parametrize("plugin", QUEUE_PLUGINS)
def test_a_guarantee_of_half_the_node_leaves_others_the_unreserved_part_only(
    api: client.ApiClient, objects: client.CustomObjectsApi, plugin: str
) -> None:
    use_conf(objects, plugin)
    create_queue(objects, "queue1", HALF_NODE)
    create_queue(objects, "queue2")

    create_job(objects, "queue2-job", "1500m", "512Mi")

    # 1500m would fit the idle node, but only 1000m of it is not reserved for queue1.
    assert_left_pending(api, objects, "queue2-job")
    # Exactly the unreserved part is queue2's to use.
    create_job(objects, "queue2-small-job", "1000m", "512Mi")
    wait_for(lambda: job_phase(objects, "queue2-small-job") == "Running")
    assert job_phase(objects, "queue2-job") == "Pending"
