"""kubectl and the topology fields: a Job's networkTopology and partitionPolicy, the PodGroup
the controller makes from them, and a Queue's node-group affinity, as kubectl shows them."""

from __future__ import annotations

import pytest
import yaml

from tests.kube.server_kit import KUBECTL, KubeServer, kubectl, wait_for

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

NAMESPACE = "kubectl-topology"
JOB = """\
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: {name}
spec:
  minAvailable: 2
  schedulerName: volcano
  queue: test
  networkTopology:
    mode: {mode}
    highestTierAllowed: 1
  tasks:
  - name: worker
    replicas: 2
    partitionPolicy:
      totalPartitions: 2
      partitionSize: 1
      networkTopology:
        highestTierName: leaf
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: main
          image: busybox
          command: [sleep, "10"]
          resources:
            requests:
              cpu: 100m
"""
QUEUE = """\
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: kubectl-nodegroup
spec:
  weight: 1
  reclaimable: true
  affinity:
    nodeGroupAffinity:
      requiredDuringSchedulingIgnoredDuringExecution: [group-a]
      preferredDuringSchedulingIgnoredDuringExecution: [group-c, group-b]
    nodeGroupAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution: [group-x]
"""


@pytest.fixture(scope="module")
def namespace(kube_server: KubeServer) -> str:
    """The tests' own namespace (tests/kube's server seeds only the older tests' ones)."""
    status, _, raw = kube_server.call(
        "POST",
        "/api/v1/namespaces",
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
    )
    assert status in (201, 409), raw[:300]
    return NAMESPACE


def _yaml(server: KubeServer, *args: str, namespace: str) -> dict:  # type: ignore[type-arg]
    shown = kubectl(server, "get", *args, "-o", "yaml", namespace=namespace)
    assert shown.returncode == 0, shown.stderr
    return dict(yaml.safe_load(shown.stdout))


def test_a_jobs_network_topology_shows_as_given_and_reaches_its_pod_group(
    kube_server: KubeServer, namespace: str
) -> None:
    applied = kubectl(
        kube_server,
        "apply",
        "-f",
        "-",
        namespace=namespace,
        stdin=JOB.format(name="topo", mode="hard"),
    )
    assert applied.returncode == 0, applied.stderr
    try:
        job = _yaml(kube_server, "vcjob", "topo", namespace=namespace)
        assert job["spec"]["networkTopology"] == {"mode": "hard", "highestTierAllowed": 1}
        assert job["spec"]["tasks"][0]["partitionPolicy"] == {
            "totalPartitions": 2,
            "partitionSize": 1,
            "networkTopology": {"mode": "hard", "highestTierName": "leaf"},
            "minPartitions": 0,
        }

        def pod_group() -> dict | None:  # type: ignore[type-arg]
            items = _yaml(kube_server, "podgroups", namespace=namespace)["items"]
            return items[0] if items else None

        group = wait_for(pod_group, timeout=30)
        assert group["spec"]["networkTopology"] == {"mode": "hard", "highestTierAllowed": 1}
        assert group["spec"]["subGroupPolicy"] == [
            {
                "name": "worker",
                "networkTopology": {"mode": "hard", "highestTierName": "leaf"},
                "subGroupSize": 1,
                "minSubGroups": 0,
                "labelSelector": {"matchLabels": {"volcano.sh/task-spec": "worker"}},
                "matchLabelKeys": ["volcano.sh/partition-id"],
            }
        ]
        described = kubectl(kube_server, "describe", "podgroup", namespace=namespace)
        assert described.returncode == 0, described.stderr
        assert "Network Topology:" in described.stdout
        assert "Highest Tier Allowed:  1" in described.stdout
        assert "Sub Group Policy:" in described.stdout

        def partitions() -> dict[str, str] | None:
            shown = kubectl(
                kube_server,
                "get",
                "pods",
                "-l",
                "volcano.sh/job-name=topo",
                "-o",
                "jsonpath={range .items[*]}{.metadata.name}={.metadata.labels.volcano\\.sh/partition-id} {end}",
                namespace=namespace,
            )
            found = dict(pair.split("=") for pair in shown.stdout.split())
            return found if len(found) == 2 else None

        assert wait_for(partitions, timeout=30) == {"topo-worker-0": "0", "topo-worker-1": "1"}
    finally:
        kubectl(kube_server, "delete", "vcjob", "topo", namespace=namespace)


def test_a_bad_network_topology_is_refused_naming_the_field(
    kube_server: KubeServer, namespace: str
) -> None:
    refused = kubectl(
        kube_server,
        "apply",
        "-f",
        "-",
        namespace=namespace,
        stdin=JOB.format(name="bad-topo", mode="medium"),
    )

    assert refused.returncode != 0
    assert 'The Job "bad-topo" is invalid' in refused.stderr
    assert "spec.networkTopology.mode" in refused.stderr
    assert "Unsupported value" in refused.stderr
    gone = kubectl(kube_server, "get", "vcjob", "bad-topo", namespace=namespace)
    assert gone.returncode != 0


def test_a_queues_affinity_shows_in_get_and_describe_and_survives_apply_and_replace(
    kube_server: KubeServer,
) -> None:
    try:
        first = kubectl(kube_server, "apply", "-f", "-", stdin=QUEUE)
        assert first.stdout.strip() == "queue.scheduling.volcano.sh/kubectl-nodegroup created", (
            first.stderr
        )
        again = kubectl(kube_server, "apply", "-f", "-", stdin=QUEUE)
        assert again.stdout.strip() == "queue.scheduling.volcano.sh/kubectl-nodegroup unchanged"

        shown = _yaml(kube_server, "queue", "kubectl-nodegroup", namespace="default")
        assert shown["spec"]["affinity"] == yaml.safe_load(QUEUE)["spec"]["affinity"]
        described = kubectl(kube_server, "describe", "queue", "kubectl-nodegroup")
        assert described.returncode == 0, described.stderr
        for words in ("Affinity:", "Node Group Affinity:", "Node Group Anti Affinity:", "group-c"):
            assert words in described.stdout, described.stdout

        current = kubectl(kube_server, "get", "queue", "kubectl-nodegroup", "-o", "yaml")
        replaced = kubectl(kube_server, "replace", "-f", "-", stdin=current.stdout)
        assert replaced.returncode == 0, replaced.stderr
        after = _yaml(kube_server, "queue", "kubectl-nodegroup", namespace="default")
        assert after["spec"]["affinity"] == shown["spec"]["affinity"]

        patched = kubectl(
            kube_server,
            "patch",
            "queue",
            "kubectl-nodegroup",
            "--type",
            "merge",
            "-p",
            '{"spec": {"affinity": {"nodeGroupAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": "group-a"}}}}',
        )
        assert patched.returncode != 0
        assert (
            "spec.affinity.nodeGroupAffinity.requiredDuringSchedulingIgnoredDuringExecution"
            in patched.stderr
        )
    finally:
        kubectl(kube_server, "delete", "queue", "kubectl-nodegroup")


def test_explain_describes_the_topology_fields(kube_server: KubeServer) -> None:
    topology = kubectl(kube_server, "explain", "vcjob.spec.networkTopology")
    partition = kubectl(kube_server, "explain", "vcjob.spec.tasks.partitionPolicy")
    sub_groups = kubectl(kube_server, "explain", "podgroup.spec.subGroupPolicy")
    affinity = kubectl(kube_server, "explain", "queue.spec.affinity.nodeGroupAffinity")

    assert topology.returncode == 0, topology.stderr
    assert "highestTierAllowed\t<integer>" in topology.stdout
    assert "mode\t<string>" in topology.stdout
    assert "partitionSize\t<integer>" in partition.stdout
    assert "subGroupSize\t<integer>" in sub_groups.stdout
    assert "matchLabelKeys\t<[]string>" in sub_groups.stdout
    assert "requiredDuringSchedulingIgnoredDuringExecution\t<[]string>" in affinity.stdout
