"""``kubectl get secrets --watch``: the ssh plugin's Secret comes and goes on the stream."""

from __future__ import annotations

import time

import pytest

from tests.kube.server_kit import EXAMPLES, KUBECTL, KubeServer, Watcher, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")


def test_watching_secrets_sees_the_ssh_secret_added_then_deleted(
    kube_server: KubeServer, watchers: list[Watcher]
) -> None:
    namespace = "kubectl-watch-secrets"
    path = str(EXAMPLES / "jobs" / "mindspore-cpu.yaml")  # has the ssh plugin
    secrets = Watcher(
        kube_server, "get", "secrets", "--watch", "--output-watch-events", namespace=namespace
    )
    watchers.append(secrets)
    time.sleep(1)  # the watch is open before the job exists
    try:
        applied = kubectl(kube_server, "apply", "-f", path, namespace=namespace)
        assert applied.returncode == 0, applied.stderr

        def event(kind: str):  # type: ignore[no-untyped-def]
            return lambda line: line.split()[:2] == [kind, "mindspore-cpu-ssh"]

        assert secrets.wait_for(event("ADDED")), secrets.lines
        listed = kubectl(kube_server, "get", "secrets", namespace=namespace)
        shown = kubectl(kube_server, "get", "secret", "mindspore-cpu-ssh", "-o",
                        "go-template={{len .data}}", namespace=namespace)  # fmt: skip
        header, row = (line.split() for line in listed.stdout.splitlines())
        assert header == ["NAME", "TYPE", "DATA", "AGE"]  # kube-apiserver's columns
        assert row[:3] == ["mindspore-cpu-ssh", "Opaque", shown.stdout]
        assert int(shown.stdout) >= 3  # the keys, the public key and the ssh config
    finally:
        deleted = kubectl(kube_server, "delete", "-f", path, namespace=namespace)
    assert deleted.returncode == 0, deleted.stderr
    assert secrets.wait_for(event("DELETED"), timeout=30), secrets.lines
