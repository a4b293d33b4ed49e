"""A server of its own for the Kubeflow experiments: the queue ``test`` there holds 8Gi.

The shared server of tests/kube keeps Volcano's example queue ``test`` (2 CPUs), which
its tests read back; these experiments need the queue they were run with, so they get
a server of their own, seeded the way the experiments were: nodes by the API, then the
queue and the priority class with ``kubectl create -f``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kube.server_kit import EXAMPLES, KUBECTL, KubeServer, kubectl, node, serve
from tests.kube.server_kit import watchers as watchers  # a fixture, shared with tests/kube

NAMESPACES = ("exp-priority", "exp-fit", "py-training", "kubectl-training")
QUEUE_FILE = EXAMPLES / "kubeflow" / "queue-test-8g.yaml"
PRIORITY_FILE = EXAMPLES / "queues" / "high-priority-class.yaml"


@pytest.fixture(scope="package")
def training_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeServer]:
    """Start the server with two roomy nodes, the queue test (8Gi) and high-priority."""
    if KUBECTL is None:
        pytest.skip("kubectl is not installed on this machine")
    with serve(tmp_path_factory.mktemp("kubeflow-server")) as server:
        for namespace in NAMESPACES:
            server.json("POST", "/api/v1/namespaces",
                        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})  # fmt: skip
        for i in range(2):
            server.json("POST", "/api/v1/nodes", node(f"gpu-node-{i}"))
        for path in (QUEUE_FILE, PRIORITY_FILE):
            done = kubectl(server, "create", "-f", str(Path(path)))
            assert done.returncode == 0, done.stderr
        yield server
