"""kubectl's namespace verbs, and an unknown resource, against the live server."""

from __future__ import annotations

import pytest

from tests.kube.server_kit import KUBECTL, KubeServer, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")


def test_create_get_and_delete_a_namespace(kube_server: KubeServer) -> None:
    created = kubectl(kube_server, "create", "namespace", "kubectl-ns", namespace="default")
    assert created.returncode == 0, created.stderr
    assert created.stdout.strip() == "namespace/kubectl-ns created"

    listed = kubectl(kube_server, "get", "ns", namespace="default")
    assert listed.returncode == 0, listed.stderr
    header, *rows = listed.stdout.splitlines()
    assert header.split() == ["NAME", "STATUS", "AGE"]
    assert any(r.split()[:2] == ["kubectl-ns", "Active"] for r in rows)

    deleted = kubectl(kube_server, "delete", "ns", "kubectl-ns", namespace="default")
    assert deleted.returncode == 0, deleted.stderr
    assert 'namespace "kubectl-ns" deleted' in deleted.stdout
    gone = kubectl(kube_server, "get", "ns", "kubectl-ns", namespace="default")
    assert gone.returncode != 0
    assert 'namespaces "kubectl-ns" not found' in gone.stderr


def test_creating_in_a_missing_namespace_prints_kubectls_not_found(kube_server: KubeServer) -> None:
    manifest = """apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: pg}
spec: {minMember: 1}
"""
    done = kubectl(kube_server, "create", "-f", "-", namespace="no-such-ns", stdin=manifest)
    assert done.returncode != 0
    assert 'namespaces "no-such-ns" not found' in done.stderr


def test_an_unknown_resource_prints_kubectls_normal_error(kube_server: KubeServer) -> None:
    done = kubectl(kube_server, "get", "widgets", namespace="default")
    assert done.returncode != 0
    assert 'the server doesn\'t have a resource type "widgets"' in done.stderr
