"""The official ``kubernetes`` client creates, watches and deletes a PyTorchJob."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from kubernetes import client, config, watch  # type: ignore[import-untyped]
from kubernetes.client.rest import ApiException  # type: ignore[import-untyped]

from tests.kube.server_kit import KubeServer, wait_for

GROUP, VERSION, PLURAL = "kubeflow.org", "v1", "pytorchjobs"
NAMESPACE = "py-training"
MANIFEST = Path(__file__).resolve().parents[2] / "jobs" / "examples" / "pytorchjob-master-only.yaml"


@pytest.fixture
def api(training_server: KubeServer) -> Iterator[client.ApiClient]:
    """Return an API client made from the kubeconfig, as a user's script makes it."""
    with config.new_client_from_config(config_file=str(training_server.kubeconfig)) as api_client:
        yield api_client


def test_pytorchjob_create_watch_delete_through_custom_objects_api(api: client.ApiClient) -> None:
    jobs = client.CustomObjectsApi(api)
    manifest = yaml.safe_load(MANIFEST.read_text())
    manifest["spec"]["runPolicy"]["schedulingPolicy"]["queue"] = "default"
    created = jobs.create_namespaced_custom_object(GROUP, VERSION, NAMESPACE, PLURAL, manifest)
    assert created["kind"] == "PyTorchJob"
    assert created["spec"]["pytorchReplicaSpecs"]["Master"]["restartPolicy"] == "OnFailure"
    listed = jobs.list_namespaced_custom_object(GROUP, VERSION, NAMESPACE, PLURAL)
    assert listed["kind"] == "PyTorchJobList"

    seen: list[str] = []
    stream = watch.Watch()
    for event in stream.stream(
        jobs.list_namespaced_custom_object, GROUP, VERSION, NAMESPACE, PLURAL, timeout_seconds=60
    ):
        conditions = event["object"].get("status", {}).get("conditions") or []
        state = conditions[-1]["type"] if conditions else ""
        if state and (not seen or seen[-1] != state):
            seen.append(state)
        if state == "Succeeded":
            stream.stop()
    assert seen == ["Created", "Running", "Succeeded"]

    jobs.delete_namespaced_custom_object(GROUP, VERSION, NAMESPACE, PLURAL, "pytorch-master-only")

    def gone() -> bool:
        try:
            jobs.get_namespaced_custom_object(
                GROUP, VERSION, NAMESPACE, PLURAL, "pytorch-master-only"
            )
        except ApiException as error:
            return bool(error.status == 404)
        return False

    wait_for(gone, timeout=10)
    # Its pod goes with it (the garbage collector's part, played by the controller).
    wait_for(lambda: not client.CoreV1Api(api).list_namespaced_pod(NAMESPACE).items, timeout=30)
