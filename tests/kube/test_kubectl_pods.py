"""``kubectl get pods -o wide``: the columns kube-apiserver serves for pods, read by real kubectl."""

from __future__ import annotations

import re

import pytest

from tests.kube.server_kit import KUBECTL, KubeServer, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: kubectl-wide-pod
spec:
  schedulerName: volcano
  containers:
  - name: main
    image: busybox
    resources:
      requests:
        cpu: 100m
"""


def test_get_pods_wide_prints_kube_apiservers_columns(kube_server: KubeServer) -> None:
    namespace = "kubectl-pods-wide"
    try:
        made = kubectl(kube_server, "apply", "-f", "-", namespace=namespace, stdin=POD)
        assert made.returncode == 0, made.stderr

        wide = kubectl(kube_server, "get", "pods", "-o", "wide", namespace=namespace)

        assert wide.returncode == 0, wide.stderr
        header, row = (re.split(r"\s{2,}", line.strip()) for line in wide.stdout.splitlines())
        assert header == [
            "NAME", "READY", "STATUS", "RESTARTS", "AGE",
            "IP", "NODE", "NOMINATED NODE", "READINESS GATES",
        ]  # fmt: skip
        shown = dict(zip(header, row, strict=True))
        assert shown["NAME"] == "kubectl-wide-pod"
        assert (shown["IP"], shown["NOMINATED NODE"], shown["READINESS GATES"]) == ("<none>",) * 3
        narrow = kubectl(kube_server, "get", "pods", namespace=namespace)
        assert narrow.stdout.split()[:5] == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
        assert "NOMINATED" not in narrow.stdout
    finally:
        kubectl(kube_server, "delete", "pod", "kubectl-wide-pod", namespace=namespace)
