"""A server of its own for the workflow clients: kubectl and the official client meet the flow
kinds the way a user does, with the embedded scheduler running them on a fast clock (sixty
simulated seconds a second: Volcano's CronJob example, every five minutes, fires every five
seconds)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from flow.controller.jobflow import forget_last_pass
from tests.kube.server_kit import KUBECTL, KubeServer, node, serve

NAMESPACES = ("flow-kubectl", "flow-client", "flow-cron")


@pytest.fixture(scope="package")
def flow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeServer]:
    """Start the server with two nodes and the namespaces the workflow tests use."""
    if KUBECTL is None:
        pytest.skip("kubectl is not installed on this machine")
    with serve(tmp_path_factory.mktemp("flow-server")) as server:
        for namespace in NAMESPACES:
            server.json("POST", "/api/v1/namespaces",
                        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})  # fmt: skip
        for i in range(2):
            server.json("POST", "/api/v1/nodes", node(f"flow-node-{i}"))
        yield server


@pytest.fixture(autouse=True)
def _full_jobflow_passes() -> Iterator[None]:
    """Start each test with a full JobFlow pass: its database is new, the change ids too."""
    forget_last_pass()
    yield
    forget_last_pass()
