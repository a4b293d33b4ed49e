"""Nodes as a kubelet reports them: a node dumped from a real cluster (``kubectl get node -o
yaml``) applies unchanged and keeps its nodeInfo and addresses; a simulated node reports the
simulated kubelet; the Table has kube-apiserver's node columns, wide ones included."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from django.test import Client

from tests.kube.api_kit import NODES

TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"

# A kind node's dump, trimmed of the fields a create may not carry (uid, resourceVersion).
DUMPED = """
apiVersion: v1
kind: Node
metadata:
  name: kind-worker
  labels: {kubernetes.io/hostname: kind-worker, kubernetes.io/os: linux}
  annotations: {node.alpha.kubernetes.io/ttl: "0"}
spec:
  podCIDR: 10.244.1.0/24
  podCIDRs: [10.244.1.0/24]
  providerID: kind://docker/kind/kind-worker
status:
  addresses:
  - {type: InternalIP, address: 172.18.0.3}
  - {type: Hostname, address: kind-worker}
  allocatable: {cpu: "8", ephemeral-storage: 100Gi, memory: 16Gi, pods: "110"}
  capacity: {cpu: "8", ephemeral-storage: 100Gi, memory: 16Gi, pods: "110"}
  conditions:
  - {type: MemoryPressure, status: "False", reason: KubeletHasSufficientMemory,
     message: kubelet has sufficient memory available,
     lastHeartbeatTime: "2026-11-27T10:00:00Z", lastTransitionTime: "2026-11-27T09:00:00Z"}
  - {type: Ready, status: "True", reason: KubeletReady, message: kubelet is posting ready status,
     lastHeartbeatTime: "2026-11-27T10:00:00Z", lastTransitionTime: "2026-11-27T09:00:00Z"}
  daemonEndpoints: {kubeletEndpoint: {Port: 10250}}
  images:
  - names: [registry.k8s.io/pause:3.10]
    sizeBytes: 320368
  nodeInfo:
    architecture: amd64
    bootID: 6b1c4a5e-0000-4000-8000-000000000001
    containerRuntimeVersion: containerd://1.7.18
    kernelVersion: 6.1.0-26-amd64
    kubeProxyVersion: v1.32.0
    kubeletVersion: v1.32.0
    machineID: 3f1a
    operatingSystem: linux
    osImage: Debian GNU/Linux 12 (bookworm)
    swap: {capacity: 0}
    systemUUID: 3f1a
  phase: Running
"""


def _rows(client: Client) -> dict[str, dict[str, Any]]:
    answer = client.get(NODES, headers={"accept": TABLE})
    assert answer.status_code == 200, answer.content
    table = answer.json()
    names = [column["name"] for column in table["columnDefinitions"]]
    return {row["cells"][0]: dict(zip(names, row["cells"], strict=True)) for row in table["rows"]}


@pytest.mark.django_db
def test_a_node_dumped_from_a_real_cluster_applies_and_keeps_what_its_kubelet_said(
    operator: Client,
) -> None:
    made = operator.post(NODES, DUMPED, content_type="application/yaml")

    assert made.status_code == 201, made.content
    node = operator.get(f"{NODES}/kind-worker").json()
    assert node["status"]["nodeInfo"] == yaml.safe_load(DUMPED)["status"]["nodeInfo"]
    assert node["status"]["addresses"][0] == {"type": "InternalIP", "address": "172.18.0.3"}
    row = _rows(operator)["kind-worker"]
    assert (row["Status"], row["Version"], row["Internal-IP"]) == (
        "Ready", "v1.32.0", "172.18.0.3"
    )  # fmt: skip
    assert (row["External-IP"], row["OS-Image"]) == ("<none>", "Debian GNU/Linux 12 (bookworm)")
    assert row["Container-Runtime"] == "containerd://1.7.18"


@pytest.mark.django_db
def test_a_simulated_node_reports_the_simulated_kubelet(operator: Client) -> None:
    plain = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "sim-node"},
        "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    }
    assert operator.post(NODES, plain, content_type="application/json").status_code == 201

    row = _rows(operator)["sim-node"]

    assert row["Version"].endswith("-volcano-sim")
    assert (row["Internal-IP"], row["Kernel-Version"]) == ("<none>", "<unknown>")


@pytest.mark.django_db
def test_a_node_address_without_an_address_is_refused_naming_the_field(
    operator: Client,
) -> None:
    bad = yaml.safe_load(DUMPED)
    bad["status"]["addresses"] = [{"type": "InternalIP"}]

    answer = operator.post(NODES, bad, content_type="application/json")

    assert answer.status_code == 422, answer.content
    assert "status.addresses[0].address" in answer.content.decode()
    assert operator.get(f"{NODES}/kind-worker").status_code == 404


@pytest.mark.django_db
def test_a_partial_node_info_is_served_with_every_field_the_clients_require(
    operator: Client,
) -> None:
    partial = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "partial-node"},
        "status": {"capacity": {"cpu": "4"}, "nodeInfo": {"kubeletVersion": "v1.30.1"}},
    }
    assert operator.post(NODES, partial, content_type="application/json").status_code == 201

    info = operator.get(f"{NODES}/partial-node").json()["status"]["nodeInfo"]

    # Kubernetes writes every NodeSystemInfo field, "" when unknown; the official Python
    # client raises on a node whose nodeInfo lacks one (bootID, machineID, ...).
    assert set(info) >= {"bootID", "machineID", "systemUUID", "kubeProxyVersion", "osImage"}
    assert (info["kubeletVersion"], info["bootID"]) == ("v1.30.1", "")
