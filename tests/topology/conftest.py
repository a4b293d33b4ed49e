"""A server of its own for the topology app's clients: kubectl and the official client meet
HyperNodes there, with nodes to cover (see tests/kube/server_kit)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.kube.server_kit import KUBECTL, KubeServer, serve
from tests.topology.kit import node

NODES = ("topo-gpu-0", "topo-gpu-1", "topo-cpu-0")


@pytest.fixture(scope="package")
def topology_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeServer]:
    """Start the server with three nodes (two of them in rack r1) and stop it afterwards."""
    if KUBECTL is None:
        pytest.skip("kubectl is not installed on this machine")
    with serve(tmp_path_factory.mktemp("topology-server")) as server:
        for name in NODES:
            rack = "r1" if "gpu" in name else "r2"
            server.json("POST", "/api/v1/nodes", node(name, rack=rack))
        yield server
