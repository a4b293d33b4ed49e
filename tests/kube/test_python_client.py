"""The official ``kubernetes`` Python package, unchanged, against the server.

Each of Volcano's example jobs goes through ``CustomObjectsApi``: create, list,
get, merge-patch, watch until the scheduler runs it, delete; pods and nodes are
read through ``CoreV1Api`` into the client's typed models.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes import client, config, watch  # type: ignore[import-untyped]
from kubernetes.client.rest import ApiException  # type: ignore[import-untyped]

from tests.kube.server_kit import JOB_FILES, KubeServer, wait_for

GROUP, VERSION, PLURAL = "batch.volcano.sh", "v1alpha1", "jobs"
NAMESPACE = "py-client"


@pytest.fixture
def api(kube_server: KubeServer) -> Iterator[client.ApiClient]:
    """Return an API client made from the user's kubeconfig, as a user's script makes it."""
    with config.new_client_from_config(config_file=str(kube_server.kubeconfig)) as api_client:
        yield api_client


def _phase(job: dict[str, Any]) -> str:
    return str(job.get("status", {}).get("state", {}).get("phase", ""))


@pytest.mark.parametrize("path", JOB_FILES, ids=lambda p: p.stem)
def test_example_job_lifecycle_through_custom_objects_api(
    api: client.ApiClient, path: Path
) -> None:
    jobs = client.CustomObjectsApi(api)
    manifest = yaml.safe_load(path.read_text())
    name = manifest["metadata"]["name"]

    created = jobs.create_namespaced_custom_object(GROUP, VERSION, NAMESPACE, PLURAL, manifest)
    assert created["metadata"]["uid"]
    assert created["metadata"]["namespace"] == NAMESPACE

    listed = jobs.list_namespaced_custom_object(GROUP, VERSION, NAMESPACE, PLURAL)
    assert listed["kind"] == "JobList"
    assert name in [item["metadata"]["name"] for item in listed["items"]]

    got = jobs.get_namespaced_custom_object(GROUP, VERSION, NAMESPACE, PLURAL, name)
    assert got["spec"]["tasks"][0]["name"] == manifest["spec"]["tasks"][0]["name"]

    patched = jobs.patch_namespaced_custom_object(
        GROUP, VERSION, NAMESPACE, PLURAL, name, {"metadata": {"labels": {"checked": "yes"}}}
    )
    assert patched["metadata"]["labels"]["checked"] == "yes"
    assert int(patched["metadata"]["resourceVersion"]) > int(got["metadata"]["resourceVersion"])

    seen: list[str] = []
    stream = watch.Watch()
    for event in stream.stream(
        jobs.list_namespaced_custom_object,
        GROUP,
        VERSION,
        NAMESPACE,
        PLURAL,
        field_selector=f"metadata.name={name}",
        timeout_seconds=60,
    ):
        seen.append(_phase(event["object"]))
        if seen[-1] in ("Running", "Completed"):
            stream.stop()
    assert "Running" in seen, seen

    jobs.delete_namespaced_custom_object(
        GROUP, VERSION, NAMESPACE, PLURAL, name, propagation_policy="Background"
    )
    with pytest.raises(ApiException) as refused:
        jobs.get_namespaced_custom_object(GROUP, VERSION, NAMESPACE, PLURAL, name)
    assert refused.value.status == 404


def test_invalid_job_is_refused_naming_the_field(api: client.ApiClient) -> None:
    manifest = yaml.safe_load(JOB_FILES[0].read_text())
    manifest["metadata"]["name"] = "py-invalid"
    manifest["spec"]["tasks"][0]["replicas"] = -1
    with pytest.raises(ApiException) as refused:
        client.CustomObjectsApi(api).create_namespaced_custom_object(
            GROUP, VERSION, NAMESPACE, PLURAL, manifest
        )
    assert refused.value.status == 422
    assert "spec.tasks[0].replicas" in refused.value.body


def test_pods_and_nodes_read_through_core_v1_api(api: client.ApiClient) -> None:
    core = client.CoreV1Api(api)
    nodes = core.list_node()
    assert {f"kube-node-{i}" for i in range(6)} <= {n.metadata.name for n in nodes.items}
    assert all(n.status.allocatable["cpu"] == "16" for n in nodes.items)

    manifest = yaml.safe_load((JOB_FILES[0].parent / "nginx-sleep.yaml").read_text())
    manifest["metadata"]["name"] = "py-pods"
    jobs = client.CustomObjectsApi(api)
    jobs.create_namespaced_custom_object(GROUP, VERSION, NAMESPACE, PLURAL, manifest)
    try:
        pods = wait_for(
            lambda: [
                p
                for p in core.list_namespaced_pod(NAMESPACE).items
                if p.metadata.name.startswith("py-pods-") and p.status.phase == "Running"
            ]
        )
        pod = pods[0]
        assert pod.spec.node_name.startswith("kube-node-")
        assert pod.spec.containers[0].image == "nginx:latest"
        assert core.read_namespaced_pod(pod.metadata.name, NAMESPACE).metadata.uid == (
            pod.metadata.uid
        )
        log = core.read_namespaced_pod_log(pod.metadata.name, NAMESPACE)
        assert "phase Running" in log
    finally:
        jobs.delete_namespaced_custom_object(GROUP, VERSION, NAMESPACE, PLURAL, "py-pods")


def test_owner_references_collect_orphan_and_finalizers_through_the_typed_client(
    api: client.ApiClient,
) -> None:
    core = client.CoreV1Api(api)
    groups = client.CustomObjectsApi(api)
    owner = groups.create_namespaced_custom_object(
        "scheduling.volcano.sh", "v1beta1", NAMESPACE, "podgroups",
        {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
         "metadata": {"name": "py-owner"}, "spec": {"minMember": 1}},
    )  # fmt: skip
    ref = client.V1OwnerReference(
        api_version="scheduling.volcano.sh/v1beta1", kind="PodGroup", name="py-owner",
        uid=owner["metadata"]["uid"], controller=True,
    )  # fmt: skip

    def pod(name: str, **meta: Any) -> client.V1Pod:
        return client.V1Pod(
            api_version="v1",
            kind="Pod",
            metadata=client.V1ObjectMeta(name=name, **meta),
            spec=client.V1PodSpec(
                containers=[client.V1Container(name="c", image="busybox")],
                scheduler_name="no-such-scheduler",  # stays Pending: nothing here binds it
            ),
        )

    created = core.create_namespaced_pod(NAMESPACE, pod("py-owned", owner_references=[ref]))
    assert created.metadata.owner_references[0].uid == owner["metadata"]["uid"]
    kept = core.create_namespaced_pod(NAMESPACE, pod("py-held", finalizers=["example.com/hold"]))
    assert kept.metadata.finalizers == ["example.com/hold"]

    groups.delete_namespaced_custom_object(
        "scheduling.volcano.sh", "v1beta1", NAMESPACE, "podgroups", "py-owner"
    )
    with pytest.raises(ApiException) as gone:
        core.read_namespaced_pod("py-owned", NAMESPACE)
    assert gone.value.status == 404

    core.delete_namespaced_pod("py-held", NAMESPACE)
    terminating = core.read_namespaced_pod("py-held", NAMESPACE)
    assert terminating.metadata.deletion_timestamp is not None
    core.patch_namespaced_pod("py-held", NAMESPACE, {"metadata": {"finalizers": None}})
    with pytest.raises(ApiException) as released:
        core.read_namespaced_pod("py-held", NAMESPACE)
    assert released.value.status == 404
