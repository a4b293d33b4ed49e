"""Through the official client: what a PyTorchJob owns, the events it records, what it refuses."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client, config  # type: ignore[import-untyped]
from kubernetes.client.rest import ApiException  # type: ignore[import-untyped]

from tests.kube.server_kit import KubeServer, kubectl, wait_for

GROUP, VERSION, PLURAL = "kubeflow.org", "v1", "pytorchjobs"
NAMESPACE = "py-training"


@pytest.fixture
def api(training_server: KubeServer) -> Iterator[client.ApiClient]:
    """Return an API client made from the kubeconfig, as a user's script makes it."""
    with config.new_client_from_config(config_file=str(training_server.kubeconfig)) as api_client:
        yield api_client


def _replica(replicas: int, *, duration: str, restart: str, exit_code: int = 0) -> dict[str, Any]:
    """Return a replica whose simulated container runs ``duration`` and exits ``exit_code``."""
    annotations = {"volcano.sh/sim-duration": duration, "volcano.sh/sim-exit-code": str(exit_code)}
    return {
        "replicas": replicas,
        "restartPolicy": restart,
        "template": {
            "metadata": {"annotations": annotations},
            "spec": {
                "containers": [
                    {
                        "name": "pytorch",
                        "image": "docker.io/kubeflowkatib/pytorch-mnist:v1beta1-45c5727",
                        "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                    }
                ]
            },
        },
    }


def _job(name: str, master: dict[str, Any], worker: dict[str, Any], **run: Any) -> dict[str, Any]:
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": name},
        "spec": {
            "runPolicy": {"schedulingPolicy": {"queue": "default"}, **run},
            "pytorchReplicaSpecs": {"Master": master, "Worker": worker},
        },
    }


def _events(api: client.ApiClient, name: str) -> list[Any]:
    """Return the events recorded about PyTorchJob ``name``, oldest first."""
    found = client.CoreV1Api(api).list_namespaced_event(
        NAMESPACE, field_selector=f"involvedObject.kind=PyTorchJob,involvedObject.name={name}"
    )
    return sorted(found.items, key=lambda e: e.first_timestamp)


def _state(jobs: client.CustomObjectsApi, name: str) -> str:
    job = jobs.get_namespaced_custom_object(GROUP, VERSION, NAMESPACE, PLURAL, name)
    conditions = job.get("status", {}).get("conditions") or [{}]
    return str(conditions[-1].get("type", ""))


def _delete(jobs: client.CustomObjectsApi, name: str) -> None:
    jobs.delete_namespaced_custom_object(GROUP, VERSION, NAMESPACE, PLURAL, name)


def test_pods_and_podgroup_carry_the_job_as_controller_owner(api: client.ApiClient) -> None:
    jobs, core = client.CustomObjectsApi(api), client.CoreV1Api(api)
    long = _replica(1, duration="30m", restart="OnFailure")
    created = jobs.create_namespaced_custom_object(
        GROUP, VERSION, NAMESPACE, PLURAL, _job("owned", long, _replica(2, duration="30m", restart="OnFailure"))
    )  # fmt: skip
    uid = created["metadata"]["uid"]
    selector = "training.kubeflow.org/job-name=owned"

    def pods() -> list[Any]:
        return list(core.list_namespaced_pod(NAMESPACE, label_selector=selector).items)

    wait_for(lambda: len(pods()) == 3, timeout=30)
    for pod in pods():
        [ref] = pod.metadata.owner_references
        assert (ref.api_version, ref.kind, ref.name, ref.uid) == (
            "kubeflow.org/v1", "PyTorchJob", "owned", uid
        ), pod.metadata.name  # fmt: skip
        assert (ref.controller, ref.block_owner_deletion) == (True, True)
    group = jobs.get_namespaced_custom_object(
        "scheduling.volcano.sh", "v1beta1", NAMESPACE, "podgroups", "owned"
    )
    assert group["metadata"]["ownerReferences"] == [
        {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "name": "owned", "uid": uid,
         "controller": True, "blockOwnerDeletion": True}
    ]  # fmt: skip

    # One headless Service per replica, selecting exactly that replica's pod, owned by the job.
    def services() -> dict[str, Any]:
        found = core.list_namespaced_service(NAMESPACE, label_selector=selector).items
        return {service.metadata.name: service for service in found}

    wait_for(lambda: len(services()) == 3, timeout=30)
    assert sorted(services()) == ["owned-master-0", "owned-worker-0", "owned-worker-1"]
    master = services()["owned-master-0"]
    assert master.spec.cluster_ip == "None"
    assert [(p.name, p.port) for p in master.spec.ports] == [("pytorchjob-port", 23456)]
    assert master.spec.selector["training.kubeflow.org/replica-type"] == "master"
    assert master.spec.selector["training.kubeflow.org/replica-index"] == "0"
    [ref] = master.metadata.owner_references
    assert (ref.kind, ref.name, ref.uid, ref.controller) == ("PyTorchJob", "owned", uid, True)

    def master_addresses() -> list[str]:
        endpoints = core.read_namespaced_endpoints("owned-master-0", NAMESPACE)
        return [a.ip for s in endpoints.subsets or [] for a in s.addresses or []]

    wait_for(lambda: bool(master_addresses()), timeout=30)
    master_pod = core.read_namespaced_pod("owned-master-0", NAMESPACE)
    assert master_addresses() == [master_pod.status.pod_ip]

    _delete(jobs, "owned")
    # The garbage collector follows the references: pods, Services and PodGroup go with it.
    wait_for(lambda: not pods() and not services(), timeout=30)
    with pytest.raises(ApiException) as gone:
        jobs.get_namespaced_custom_object(
            "scheduling.volcano.sh", "v1beta1", NAMESPACE, "podgroups", "owned"
        )
    assert gone.value.status == 404


def test_a_succeeding_job_records_the_operators_events(
    api: client.ApiClient, training_server: KubeServer
) -> None:
    jobs = client.CustomObjectsApi(api)
    master = _replica(1, duration="4m", restart="OnFailure")  # 4 s at the test clock's speed
    worker = _replica(1, duration="30m", restart="OnFailure")
    jobs.create_namespaced_custom_object(
        GROUP, VERSION, NAMESPACE, PLURAL, _job("evented", master, worker)
    )
    wait_for(lambda: _state(jobs, "evented") == "Succeeded", timeout=60)
    seen = [(e.type, e.reason, e.message) for e in _events(api, "evented")]
    # Both pods, then their Services, are created in one pass (Volcano's gang holds them).
    assert sorted(seen[:4]) == [
        ("Normal", "SuccessfulCreatePod", "Created pod: evented-master-0"),
        ("Normal", "SuccessfulCreatePod", "Created pod: evented-worker-0"),
        ("Normal", "SuccessfulCreateService", "Created service: evented-master-0"),
        ("Normal", "SuccessfulCreateService", "Created service: evented-worker-0"),
    ]
    assert seen[4:] == [
        ("Normal", "PyTorchJobRunning", "PyTorchJob evented is running."),
        ("Normal", "PyTorchJobSucceeded", "PyTorchJob evented is successfully completed."),
    ]
    event = _events(api, "evented")[0]
    assert event.source.component == "pytorchjob-controller"
    assert event.involved_object.namespace == NAMESPACE
    assert event.count == 1

    described = kubectl(training_server, "describe", "pytorchjob", "evented", namespace=NAMESPACE)
    assert described.returncode == 0, described.stderr
    events = described.stdout.split("Events:", 1)[1]
    for shown in ("SuccessfulCreatePod", "Created pod: evented-master-0", "PyTorchJobRunning",
                  "PyTorchJobSucceeded", "pytorchjob-controller"):  # fmt: skip
        assert shown in events, described.stdout
    _delete(jobs, "evented")


def test_a_failing_replica_restarts_then_the_backoff_limit_fails_the_job(
    api: client.ApiClient,
) -> None:
    jobs = client.CustomObjectsApi(api)
    master = _replica(1, duration="30m", restart="OnFailure")
    # Exit code 137 (killed) is retryable under ExitCode: the operator deletes the pod and
    # makes it again, once; the second failure passes backoffLimit 1.
    worker = _replica(1, duration="1m", restart="ExitCode", exit_code=137)
    jobs.create_namespaced_custom_object(
        GROUP, VERSION, NAMESPACE, PLURAL, _job("flaky", master, worker, backoffLimit=1)
    )
    wait_for(lambda: _state(jobs, "flaky") == "Failed", timeout=60)
    seen = [(e.type, e.reason, e.message, e.count) for e in _events(api, "flaky")]
    assert ("Normal", "ExitedWithCode", f"Pod: {NAMESPACE}.flaky-worker-0 exited with code 137",
            2) in seen  # fmt: skip
    assert ("Normal", "SuccessfulDeletePod", "Deleted pod: flaky-worker-0", 1) in seen
    assert ("Warning", "PyTorchJobRestarting",
            "PyTorchJob flaky is restarting because 1 Worker replica(s) failed.", 1) in seen  # fmt: skip
    assert seen[-1] == ("Normal", "PyTorchJobFailed",
                        "Job flaky has failed because it has reached the specified backoff limit", 1)  # fmt: skip
    created = [e for e in seen if e[1] == "SuccessfulCreatePod"]
    assert ("Normal", "SuccessfulCreatePod", "Created pod: flaky-worker-0", 2) in created
    job = jobs.get_namespaced_custom_object(GROUP, VERSION, NAMESPACE, PLURAL, "flaky")
    assert job["status"]["conditions"][-1]["reason"] == "PyTorchJobFailed"
    _delete(jobs, "flaky")


def test_zero_workers_and_other_webhook_refusals_name_their_fields(api: client.ApiClient) -> None:
    jobs = client.CustomObjectsApi(api)
    manifest = _job("refused", _replica(0, duration="1m", restart="OnFailure"),
                    _replica(0, duration="1m", restart="OnFailure"))  # fmt: skip
    manifest["metadata"]["name"] = "refused.job"  # a DNS subdomain, not a DNS-1035 label
    with pytest.raises(ApiException) as refused:
        jobs.create_namespaced_custom_object(GROUP, VERSION, NAMESPACE, PLURAL, manifest)
    assert refused.value.status == 422
    status = json.loads(refused.value.body)
    assert status["reason"] == "Invalid"
    causes = {(c["field"], c["reason"]): c["message"] for c in status["details"]["causes"]}
    assert causes[("spec.pytorchReplicaSpecs[Worker].replicas", "FieldValueForbidden")].endswith(
        "must be at least 1"
    )
    assert causes[("spec.pytorchReplicaSpecs[Master].replicas", "FieldValueForbidden")].endswith(
        "must be 1"
    )
    assert "DNS-1035" in causes[("metadata.name", "FieldValueInvalid")]
    assert "spec.pytorchReplicaSpecs[Worker].replicas" in status["message"]
    listed = jobs.list_namespaced_custom_object(GROUP, VERSION, NAMESPACE, PLURAL)
    assert "refused.job" not in [j["metadata"]["name"] for j in listed["items"]]
