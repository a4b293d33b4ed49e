"""The server tests/kube's clients meet, started once for the package (see server_kit)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.kube.server_kit import KubeServer, seed, serve
from tests.kube.server_kit import watchers as watchers  # a fixture, shared with tests/training


@pytest.fixture(scope="package")
def kube_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeServer]:
    """Start the server (once for tests/kube) and stop it afterwards."""
    with serve(tmp_path_factory.mktemp("kube-server")) as server:
        seed(server)
        yield server
