"""Failures a user sees through the official ``kubernetes`` client: a bind that fails is shown
on the pod and retried; a task whose container keeps crashing raises ``TaskFailed``.

The fault goes through the node's ``faults`` subresource with the client's own ``call_api``
(the client has no method for our subresource), as a script would post it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client, config, watch  # type: ignore[import-untyped]

from tests.kube.server_kit import KubeServer, wait_for

GROUP, VERSION, PLURAL = "batch.volcano.sh", "v1alpha1", "jobs"
NAMESPACE = "py-faults"
NODE = "py-fault-node"
LABEL = {"py-faults": "only"}


@pytest.fixture
def api(kube_server: KubeServer) -> Iterator[client.ApiClient]:
    """An API client from the operator's kubeconfig, the namespace made once."""
    with config.new_client_from_config(config_file=str(kube_server.kubeconfig)) as api_client:
        core = client.CoreV1Api(api_client)
        if NAMESPACE not in {n.metadata.name for n in core.list_namespace().items}:
            core.create_namespace(
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
            )
        yield api_client


@pytest.fixture
def fault_node(api: client.ApiClient) -> Iterator[str]:
    """A node of its own, tainted so that only this file's pods (which tolerate it) go there."""
    amounts = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    core = client.CoreV1Api(api)
    core.create_node(
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": NODE, "labels": LABEL},
            "spec": {"taints": [{"key": "py-faults", "value": "only", "effect": "NoSchedule"}]},
            "status": {"capacity": amounts, "allocatable": amounts},
        }
    )
    try:
        yield NODE
    finally:
        core.delete_node(NODE)


def fault(api: client.ApiClient, node: str, spec: dict[str, Any]) -> Any:
    """POST a Fault to ``node``'s ``faults`` subresource through the client."""
    return api.call_api(
        "/api/v1/nodes/{name}/faults",
        "POST",
        path_params={"name": node},
        header_params={"Content-Type": "application/json", "Accept": "application/json"},
        body={"apiVersion": "faults.volcano.sh/v1alpha1", "kind": "Fault", "spec": spec},
        auth_settings=["BearerToken"],
        response_types_map={201: "object"},
        _return_http_data_only=True,
    )


def job(name: str, template: dict[str, Any], **spec: Any) -> dict[str, Any]:
    """A one-task Volcano Job on the fault node."""
    template["spec"] |= {
        "nodeSelector": LABEL,
        "tolerations": [{"key": "py-faults", "operator": "Equal", "value": "only"}],
    }
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {
            "schedulerName": "volcano",
            "minAvailable": 1,
            "tasks": [{"name": "main", "replicas": 1, "template": template}],
            **spec,
        },
    }


def pod_scheduled(pod: Any) -> Any:
    return next((c for c in pod.status.conditions or () if c.type == "PodScheduled"), None)


def test_a_failed_bind_is_shown_on_the_pod_and_retried_after_recovery(
    api: client.ApiClient, fault_node: str
) -> None:
    core, jobs = client.CoreV1Api(api), client.CustomObjectsApi(api)
    injected = fault(api, fault_node, {"type": "BindFailure", "message": "kubelet unreachable"})
    assert injected["status"]["injected"] is True
    container = {"name": "c", "image": "busybox", "command": ["sleep", "10m"],
                 "resources": {"requests": {"cpu": "1"}}}  # fmt: skip
    manifest = job("bind-fails", {"spec": {"containers": [container]}})
    jobs.create_namespaced_custom_object(GROUP, VERSION, NAMESPACE, PLURAL, manifest)
    pod_name = "bind-fails-main-0"

    def failed_condition() -> Any:
        pods = core.list_namespaced_pod(NAMESPACE, field_selector=f"metadata.name={pod_name}")
        condition = pod_scheduled(pods.items[0]) if pods.items else None
        return condition if condition and condition.reason == "SchedulerError" else None

    condition = wait_for(failed_condition)
    assert condition.status == "False"
    assert condition.message == f"failed to bind to node {fault_node}: kubelet unreachable"
    events = core.list_namespaced_event(
        NAMESPACE, field_selector=f"involvedObject.name={pod_name}"
    ).items
    assert [(e.type, e.message) for e in events if e.reason == "FailedScheduling"] == [
        ("Warning", f"failed to bind to node {fault_node}: kubelet unreachable")
    ]
    assert core.read_namespaced_pod(pod_name, NAMESPACE).spec.node_name is None

    fault(api, fault_node, {"type": "BindRecovery"})

    bound = wait_for(
        lambda: (pod := core.read_namespaced_pod(pod_name, NAMESPACE)).spec.node_name and pod
    )
    assert bound.spec.node_name == fault_node
    assert pod_scheduled(bound).status == "True"
    jobs.delete_namespaced_custom_object(GROUP, VERSION, NAMESPACE, PLURAL, "bind-fails")


def test_a_crash_looping_task_raises_task_failed_and_terminates_the_job(
    api: client.ApiClient, fault_node: str
) -> None:
    core, jobs = client.CoreV1Api(api), client.CustomObjectsApi(api)
    # The simulated kubelet runs `sleep 1` and exits 1 (volcano.sh/sim-exit-code); under
    # OnFailure it restarts the container in place, restartCount + 1 at each crash.
    container = {"name": "c", "image": "busybox", "command": ["sh", "-c", "sleep 1; exit 1"]}
    template = {
        "metadata": {"annotations": {"volcano.sh/sim-exit-code": "1"}},
        "spec": {"containers": [container], "restartPolicy": "OnFailure"},
    }
    manifest = job(
        "crash-loop", template, policies=[{"event": "TaskFailed", "action": "TerminateJob"}]
    )
    created = jobs.create_namespaced_custom_object(GROUP, VERSION, NAMESPACE, PLURAL, manifest)
    assert created["spec"]["tasks"][0]["maxRetry"] == 3  # Volcano's default, filled in

    restarts: list[int] = []
    stream = watch.Watch()
    for event in stream.stream(
        core.list_namespaced_pod,
        NAMESPACE,
        field_selector="metadata.name=crash-loop-main-0",
        timeout_seconds=60,
    ):
        statuses = event["object"].status.container_statuses or []
        restarts.append(statuses[0].restart_count if statuses else 0)
        if restarts[-1] >= 3:
            stream.stop()
    assert max(restarts) == 3, restarts

    def phase() -> str:
        got = jobs.get_namespaced_custom_object(GROUP, VERSION, NAMESPACE, PLURAL, "crash-loop")
        return str(got.get("status", {}).get("state", {}).get("phase", ""))

    deadline = time.monotonic() + 60
    while phase() != "Terminated" and time.monotonic() < deadline:
        time.sleep(0.2)
    assert phase() == "Terminated"
    events = core.list_namespaced_event(
        NAMESPACE, field_selector="involvedObject.name=crash-loop"
    ).items
    assert "Start to execute action TerminateJob (task main restarted 3 times, maxRetry 3)" in [
        e.message for e in events if e.reason == "ExecuteAction"
    ]
    jobs.delete_namespaced_custom_object(GROUP, VERSION, NAMESPACE, PLURAL, "crash-loop")
