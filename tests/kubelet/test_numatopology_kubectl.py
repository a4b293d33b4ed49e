"""Numatopology through kubectl: a node declared with ``volcano.sh/sim-numa`` gets one from the
simulated resource exporter, listed and described under Volcano's names, and gone with its node."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from tests.kube.server_kit import KUBECTL, KubeServer, kubectl, node, serve


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeServer]:
    if KUBECTL is None:
        pytest.skip("kubectl is not installed on this machine")
    with serve(tmp_path_factory.mktemp("numa-server")) as running:
        yield running


def wait_for(check: object, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.3)
    raise AssertionError("timed out")


def test_a_numa_node_publishes_its_numatopology(server: KubeServer) -> None:
    body = node("numa-node-1")
    body["metadata"]["annotations"] = {
        "volcano.sh/sim-numa": "cells=2,policy=single-numa-node,reserved=1",
        "volcano.sh/sim-gpus": "count=2,memory=24576,mode=vgpu",
    }
    server.json("POST", "/api/v1/nodes", body)

    wait_for(lambda: kubectl(server, "get", "numatopo", "numa-node-1").returncode == 0)
    listed = kubectl(server, "get", "numatopologies")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.split("\n")[0].split() == ["NAME", "AGE"]
    assert "numa-node-1" in listed.stdout

    got = json.loads(kubectl(server, "get", "numatopology", "numa-node-1", "-o", "json").stdout)
    assert got["apiVersion"] == "nodeinfo.volcano.sh/v1alpha1"
    spec = got["spec"]
    assert spec["policies"] == {
        "CPUManagerPolicy": "static", "TopologyManagerPolicy": "single-numa-node",
    }  # fmt: skip
    assert spec["numares"]["cpu"] == {"allocatable": "0-15", "capacity": 16}
    assert spec["resReserved"] == {"cpu": "1"}
    assert spec["cpuDetail"]["9"] == {"numa": 1, "socket": 1, "core": 9}

    described = kubectl(server, "describe", "numatopo", "numa-node-1")
    assert described.returncode == 0, described.stderr
    assert "single-numa-node" in described.stdout

    # The vGPU device plugin registered the cards on the node.
    shown = json.loads(kubectl(server, "get", "node", "numa-node-1", "-o", "json").stdout)
    assert shown["status"]["allocatable"]["volcano.sh/vgpu-memory"] == "49152"
    assert shown["metadata"]["annotations"]["volcano.sh/node-vgpu-register"].count(":") == 2

    # kubectl describe lists the cards with the other resources, and what pods hold of them.
    node_text = kubectl(server, "describe", "node", "numa-node-1").stdout
    allocated = node_text.split("Allocated resources:")[1]
    assert "volcano.sh/vgpu-memory" in allocated, node_text

    # A submitter may read it but not change it (the exporter and operators write it).
    refused = kubectl(
        server, "delete", "numatopo", "numa-node-1", kubeconfig=server.submitter_kubeconfig
    )
    assert refused.returncode != 0
    assert "forbidden" in refused.stderr.lower(), refused.stderr
    read = kubectl(server, "get", "numatopo", kubeconfig=server.submitter_kubeconfig)
    assert read.returncode == 0, read.stderr
    assert "numa-node-1" in read.stdout

    deleted = kubectl(server, "delete", "node", "numa-node-1")
    assert deleted.returncode == 0, deleted.stderr
    wait_for(lambda: kubectl(server, "get", "numatopo", "numa-node-1").returncode != 0)
