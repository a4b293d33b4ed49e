"""PodDisruptionBudgets and ResourceQuotas on the live server, as kubectl and the official
Python client meet them: ``kubectl get pdb`` and ``kubectl get quota`` columns kept current by
the controllers, an eviction the budget lets through then one it refuses with 429,
``kubectl drain`` evicting by the budget, and a pod over its quota refused with 403."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from kubernetes import client, config  # type: ignore[import-untyped]
from kubernetes.client.rest import ApiException  # type: ignore[import-untyped]

from tests.kube.server_kit import KUBECTL, KubeServer, kubectl, wait_for

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

NAMESPACE = "guards"
VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget."
POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  labels: {{app: {app}}}
  annotations: {{volcano.sh/sim-duration: 10h}}
spec:
  containers:
  - name: main
    image: busybox
    resources:
      requests: {{cpu: {cpu}}}
"""
PDB = """\
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {name}
spec:
  minAvailable: 2
  selector:
    matchLabels: {{app: {app}}}
"""
QUOTA = """\
apiVersion: v1
kind: ResourceQuota
metadata:
  name: q1
spec:
  hard: {pods: "10", requests.cpu: 600m, limits.memory: 1Gi}
"""


@pytest.fixture
def namespace(kube_server: KubeServer) -> Iterator[str]:
    """Return a namespace of this test's own, deleted afterwards."""
    created = kubectl(kube_server, "create", "namespace", NAMESPACE)
    assert created.returncode == 0, created.stderr
    yield NAMESPACE
    kubectl(kube_server, "delete", "namespace", NAMESPACE, "--wait=false")


@pytest.fixture
def core(kube_server: KubeServer) -> Iterator[client.CoreV1Api]:
    """Return the official client's CoreV1Api, made from the user's kubeconfig."""
    with config.new_client_from_config(config_file=str(kube_server.kubeconfig)) as api:
        yield client.CoreV1Api(api)


def _apply(server: KubeServer, namespace: str, manifest: str) -> None:
    done = kubectl(server, "apply", "-f", "-", namespace=namespace, stdin=manifest)
    assert done.returncode == 0, done.stderr


def _pdb_row(server: KubeServer, namespace: str, name: str) -> list[str]:
    shown = kubectl(server, "get", "pdb", name, namespace=namespace)
    assert shown.returncode == 0, shown.stderr
    header, row = shown.stdout.splitlines()
    assert header.split() == ["NAME", "MIN", "AVAILABLE", "MAX", "UNAVAILABLE", "ALLOWED",
                              "DISRUPTIONS", "AGE"]  # fmt: skip
    return row.split()[:4]


def _running(server: KubeServer, namespace: str, app: str, count: int) -> list[list[str]]:
    def rows() -> list[list[str]] | None:
        shown = kubectl(server, "get", "pods", "-l", f"app={app}", "-o", "wide",
                        namespace=namespace)  # fmt: skip
        found = [line.split() for line in shown.stdout.splitlines()[1:]]
        ready = [row for row in found if row[1] == "1/1" and row[2] == "Running"]
        return ready if len(ready) == count else None

    return list(wait_for(rows, timeout=90))


def test_a_budget_lets_one_eviction_through_and_refuses_the_next(
    kube_server: KubeServer, namespace: str, core: client.CoreV1Api
) -> None:
    for index in range(3):
        _apply(kube_server, namespace, POD.format(name=f"web-{index}", app="web", cpu="10m"))
    _apply(kube_server, namespace, PDB.format(name="web", app="web"))
    _running(kube_server, namespace, "web", 3)
    wait_for(lambda: _pdb_row(kube_server, namespace, "web") == ["web", "2", "N/A", "1"])

    def evict(name: str) -> None:
        body = client.V1Eviction(metadata=client.V1ObjectMeta(name=name, namespace=namespace))
        core.create_namespaced_pod_eviction(name, namespace, body)

    evict("web-0")
    with pytest.raises(ApiException) as refused:
        evict("web-1")

    assert refused.value.status == 429
    status = json.loads(refused.value.body)
    assert status["message"] == VIOLATION
    (cause,) = status["details"]["causes"]
    assert cause["reason"] == "DisruptionBudget"
    assert cause["message"].startswith("The disruption budget web needs 2 healthy pods")
    # The evicted pod goes (Terminating first); the controller then counts two healthy pods
    # and none to spare.
    policy = client.PolicyV1Api(core.api_client)

    def counted() -> client.V1PodDisruptionBudgetStatus | None:
        status = policy.read_namespaced_pod_disruption_budget("web", namespace).status
        return status if status.current_healthy == 2 else None

    status = wait_for(counted)
    assert (status.disruptions_allowed, status.desired_healthy) == (0, 2)
    assert status.expected_pods in (2, 3)  # 3 while the evicted pod is still Terminating
    assert _pdb_row(kube_server, namespace, "web") == ["web", "2", "N/A", "0"]
    described = kubectl(kube_server, "describe", "pdb", "web", namespace=namespace)
    assert re.search(r"Allowed disruptions:\s+0", described.stdout), described.stdout
    assert re.search(r"Min available:\s+2", described.stdout), described.stdout
    # A new pod the budget selects gives it one disruption again.
    _apply(kube_server, namespace, POD.format(name="web-3", app="web", cpu="10m"))
    wait_for(lambda: _pdb_row(kube_server, namespace, "web") == ["web", "2", "N/A", "1"])


def test_kubectl_drain_evicts_by_the_budget(kube_server: KubeServer, namespace: str) -> None:
    for index in range(2):
        _apply(kube_server, namespace, POD.format(name=f"db-{index}", app="db", cpu="10m"))
    made = kubectl(kube_server, "create", "pdb", "db", "--selector=app=db", "--min-available=1",
                   namespace=namespace)  # fmt: skip
    assert made.returncode == 0, made.stderr
    rows = _running(kube_server, namespace, "db", 2)
    wait_for(lambda: _pdb_row(kube_server, namespace, "db") == ["db", "1", "N/A", "1"])
    node = rows[0][6]
    try:
        drained = kubectl(kube_server, "drain", node, "--pod-selector=app=db", "--force",
                          "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=20s",
                          namespace=namespace)  # fmt: skip

        # One disruption: one pod of the node is evicted; a second one there is refused (429),
        # which drain retries until its timeout.
        evicted = re.findall(r"pod/(\S+) evicted", drained.stdout)
        on_node = [row[0] for row in rows if row[6] == node]
        assert len(evicted) == 1, drained.stdout + drained.stderr
        assert evicted[0] in on_node
        if len(on_node) == 2:
            assert drained.returncode != 0
            assert f"(will retry after 5s): {VIOLATION}" in drained.stderr
    finally:
        kubectl(kube_server, "uncordon", node)
    wait_for(lambda: _pdb_row(kube_server, namespace, "db") == ["db", "1", "N/A", "0"])


def test_a_pod_over_its_quota_is_refused(kube_server: KubeServer, namespace: str) -> None:
    _apply(kube_server, namespace, QUOTA)
    small = POD.format(name="small", app="q", cpu="400m")
    _apply(
        kube_server,
        namespace,
        small.replace("requests:", "limits: {memory: 64Mi}\n      requests:"),
    )

    big = POD.format(name="big", app="q", cpu="300m")
    refused = kubectl(kube_server, "apply", "-f", "-", namespace=namespace,
                      stdin=big.replace("requests:", "limits: {memory: 64Mi}\n      requests:"))  # fmt: skip

    assert refused.returncode != 0
    assert (
        'pods "big" is forbidden: exceeded quota: q1, requested: requests.cpu=300m, '
        "used: requests.cpu=400m, limited: requests.cpu=600m"
    ) in refused.stderr

    def quota_row() -> list[str] | None:
        shown = kubectl(kube_server, "get", "quota", namespace=namespace)
        header, row = shown.stdout.splitlines()
        assert header.split() == ["NAME", "AGE", "REQUEST", "LIMIT"]
        cells = row.split(None, 2)[2]
        return [cells] if "pods: 1/10" in cells else None

    (cells,) = wait_for(quota_row)
    made = kubectl(kube_server, "create", "quota", "q2", "--hard=count/configmaps=0",
                   namespace=namespace)  # fmt: skip
    assert made.returncode == 0, made.stderr
    config_map = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
    refused = kubectl(kube_server, "apply", "-f", "-", namespace=namespace, stdin=config_map)
    assert 'configmaps "c" is forbidden: exceeded quota: q2' in refused.stderr
    assert cells.split() == ["pods:", "1/10,", "requests.cpu:", "400m/600m", "limits.memory:",
                             "64Mi/1Gi"]  # fmt: skip
