"""``kubectl delete pod`` on a job's pod is an eviction: the job's PodEvicted policy restarts it."""

from __future__ import annotations

import pytest

from tests.kube.server_kit import KUBECTL, KubeServer, kubectl, wait_for

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

JOB = """\
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: evict-me
spec:
  schedulerName: volcano
  minAvailable: 1
  policies:
  - event: PodEvicted
    action: RestartJob
  tasks:
  - name: worker
    replicas: 1
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: main
          image: busybox
          command: ["sleep", "36000"]
          resources:
            requests:
              cpu: 100m
"""


def _status(server: KubeServer, namespace: str) -> tuple[str, str]:
    shown = kubectl(
        server,
        "get",
        "vcjob",
        "evict-me",
        "-o",
        "jsonpath={.status.state.phase} {.status.retryCount}",
        namespace=namespace,
    )
    assert shown.returncode == 0, shown.stderr
    phase, _, retries = shown.stdout.partition(" ")
    return phase, retries or "0"


def test_kubectl_delete_pod_restarts_the_job_by_its_policy(kube_server: KubeServer) -> None:
    namespace = "kubectl-evict"
    try:
        made = kubectl(kube_server, "apply", "-f", "-", namespace=namespace, stdin=JOB)
        assert made.returncode == 0, made.stderr
        wait_for(lambda: _status(kube_server, namespace)[0] == "Running")

        deleted = kubectl(kube_server, "delete", "pod", "evict-me-worker-0", namespace=namespace)

        assert deleted.returncode == 0, deleted.stderr
        wait_for(lambda: _status(kube_server, namespace)[1] == "1")
        wait_for(lambda: _status(kube_server, namespace) == ("Running", "1"))
        described = kubectl(kube_server, "describe", "vcjob", "evict-me", namespace=namespace)
        assert "RestartJob" in described.stdout
    finally:
        kubectl(kube_server, "delete", "vcjob", "evict-me", namespace=namespace)
