"""Real kubectl and the official client read pods as a kubelet reports them: READY 1/1 for a
running pod, CrashLoopBackOff with its restarts, Completed and Error, Terminating through a
grace period; ``CoreV1Api.list_namespaced_pod`` reads pods in every phase into typed models."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from kubernetes import client, config  # type: ignore[import-untyped]

from tests.kube.server_kit import KUBECTL, KubeServer, kubectl, wait_for

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

NAMESPACE = "kubelet-status"


def _task(name: str, policy: str, annotations: dict[str, str], **spec: Any) -> dict[str, Any]:
    return {
        "name": name,
        "replicas": 1,
        "template": {
            "metadata": {"annotations": annotations},
            "spec": {
                "restartPolicy": policy,
                "containers": [{"name": "main", "image": "busybox",
                                "resources": {"requests": {"cpu": "100m"}}}],
                **spec,
            },
        },
    }  # fmt: skip


JOB = {
    "apiVersion": "batch.volcano.sh/v1alpha1",
    "kind": "Job",
    "metadata": {"name": "kl"},
    "spec": {
        "schedulerName": "volcano",
        "minAvailable": 1,
        "tasks": [
            # 60 simulated seconds a real second (conftest): a 120 s grace is two seconds.
            _task("ready", "Never", {"volcano.sh/sim-duration": "10h",
                                     "volcano.sh/sim-ignore-sigterm": "true"},
                  terminationGracePeriodSeconds=120),
            _task("done", "Never", {"volcano.sh/sim-duration": "1s"}),
            _task("crash", "OnFailure", {"volcano.sh/sim-duration": "1s",
                                         "volcano.sh/sim-exit-code": "1"}),
            _task("failed", "Never", {"volcano.sh/sim-duration": "1s",
                                      "volcano.sh/sim-exit-code": "3"}),
        ],
    },
}  # fmt: skip


def _rows(server: KubeServer) -> dict[str, dict[str, str]]:
    shown = kubectl(server, "get", "pods", namespace=NAMESPACE)
    assert shown.returncode == 0, shown.stderr
    lines = [re.split(r"\s{2,}", line.strip()) for line in shown.stdout.splitlines()]
    if not lines:
        return {}
    header = lines[0]
    return {row[0]: dict(zip(header, row, strict=True)) for row in lines[1:]}


@pytest.fixture
def job(kube_server: KubeServer) -> Iterator[None]:
    made = kubectl(kube_server, "apply", "-f", "-", namespace=NAMESPACE, stdin=yaml.safe_dump(JOB))
    assert made.returncode == 0, made.stderr
    yield
    kubectl(
        kube_server, "delete", "job.batch.volcano.sh", "kl", "--wait=false", namespace=NAMESPACE
    )


def _settled(server: KubeServer) -> dict[str, dict[str, str]] | None:
    rows = _rows(server)
    wanted = {"kl-ready-0": "Running", "kl-done-0": "Completed", "kl-failed-0": "Error"}
    if any(rows.get(name, {}).get("STATUS") != status for name, status in wanted.items()):
        return None
    if rows.get("kl-crash-0", {}).get("STATUS") != "CrashLoopBackOff":
        return None
    return rows


def test_kubectl_get_pods_shows_what_a_kubelet_reports(kube_server: KubeServer, job: None) -> None:
    rows = wait_for(lambda: _settled(kube_server), timeout=90)

    assert rows["kl-ready-0"]["READY"] == "1/1"
    assert rows["kl-done-0"]["READY"] == "0/1"
    assert rows["kl-crash-0"]["READY"] == "0/1"
    assert int(rows["kl-crash-0"]["RESTARTS"].split()[0]) >= 1

    with config.new_client_from_config(config_file=str(kube_server.kubeconfig)) as api:
        listed = client.CoreV1Api(api).list_namespaced_pod(NAMESPACE).items
    by_name = {pod.metadata.name: pod for pod in listed}
    assert {p.status.phase for p in listed} >= {"Running", "Succeeded", "Failed"}
    ready = by_name["kl-ready-0"]
    conditions = {c.type: c.status for c in ready.status.conditions}
    assert conditions["Ready"] == conditions["ContainersReady"] == "True"
    assert ready.status.container_statuses[0].ready is True
    assert ready.status.container_statuses[0].state.running.started_at is not None
    crash = by_name["kl-crash-0"].status.container_statuses[0]
    # Sixty times faster, a back-off lasts a fraction of a second: it may run again already.
    assert crash.state.running is not None or crash.state.waiting.reason == "CrashLoopBackOff"
    assert crash.restart_count >= 1
    assert crash.last_state.terminated.exit_code == 1
    failed = by_name["kl-failed-0"].status.container_statuses[0]
    assert failed.state.terminated.exit_code == 3
    described = kubectl(kube_server, "describe", "pod", "kl-crash-0", namespace=NAMESPACE)
    assert re.search(
        r"Warning\s+BackOff\s+.*kubelet\s+Back-off restarting failed container main in pod "
        rf"kl-crash-0_{NAMESPACE}",
        described.stdout,
    ), described.stdout[-1500:]


def test_kubectl_delete_pod_leaves_it_terminating_through_its_grace_period(
    kube_server: KubeServer, job: None
) -> None:
    wait_for(lambda: _rows(kube_server).get("kl-ready-0", {}).get("READY") == "1/1", timeout=90)
    uid = kubectl(kube_server, "get", "pod", "kl-ready-0", "-o", "jsonpath={.metadata.uid}",
                  namespace=NAMESPACE).stdout  # fmt: skip

    gone = kubectl(kube_server, "delete", "pod", "kl-ready-0", "--wait=false", namespace=NAMESPACE)

    assert gone.returncode == 0, gone.stderr
    assert _rows(kube_server)["kl-ready-0"]["STATUS"] == "Terminating"
    # Ignoring SIGTERM it runs out its 120 s (two real seconds); then its job makes a new one.
    wait_for(
        lambda: kubectl(kube_server, "get", "pod", "kl-ready-0", "-o",
                        "jsonpath={.metadata.uid}", namespace=NAMESPACE).stdout not in ("", uid),
        timeout=60,
    )  # fmt: skip


def test_kubectl_wait_returns_as_soon_as_the_condition_holds(
    kube_server: KubeServer, job: None
) -> None:
    wait_for(lambda: _rows(kube_server).get("kl-ready-0", {}).get("READY") == "1/1", timeout=90)

    # kubectl lists, finds the condition met, then stops its watch, which has nothing to send:
    # when the server held back a quiet watch's headers, kubectl sat there until its timeout.
    waited = kubectl(kube_server, "wait", "--for=condition=Ready", "pod/kl-ready-0",
                     "--timeout=120s", namespace=NAMESPACE)  # fmt: skip

    assert waited.returncode == 0, waited.stderr
    assert waited.stdout.strip() == "pod/kl-ready-0 condition met"


def test_kubectl_top_shows_what_running_containers_use(kube_server: KubeServer, job: None) -> None:
    wait_for(lambda: _rows(kube_server).get("kl-ready-0", {}).get("READY") == "1/1", timeout=90)

    pods = kubectl(kube_server, "top", "pod", "kl-ready-0", "--containers", namespace=NAMESPACE)
    nodes = kubectl(kube_server, "top", "nodes", namespace=NAMESPACE)

    assert pods.returncode == 0, pods.stderr
    header, row = (line.split() for line in pods.stdout.splitlines())
    assert header == ["POD", "NAME", "CPU(cores)", "MEMORY(bytes)"]
    assert row == ["kl-ready-0", "main", "100m", "0Mi"]  # its request: cpu 100m, no memory
    assert nodes.returncode == 0, nodes.stderr
    assert nodes.stdout.split()[:5] == [
        "NAME",
        "CPU(cores)",
        "CPU(%)",
        "MEMORY(bytes)",
        "MEMORY(%)",
    ]
    assert "kube-node-0" in nodes.stdout
