"""The svc plugin's objects and pod addresses, as kubectl shows them.

A job with the svc plugin gets a ConfigMap ``<job>-svc`` of host lists, a headless Service
and a NetworkPolicy, served at Kubernetes' paths (``kubectl get svc,cm,netpol``), owned by
the job, rewritten when it scales and deleted with it. Its running pods have addresses from
their nodes' pod ranges (``kubectl get pods -o wide``), which the Services' Endpoints list.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterator

import pytest

from tests.kube.server_kit import KUBECTL, KubeServer, kubectl, wait_for

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

JOB = """\
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: {name}
spec:
  minAvailable: 1
  schedulerName: volcano
  queue: default
  plugins:
    svc: {svc}
  tasks:
  - name: worker
    replicas: 2
    minAvailable: 0
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: main
          image: busybox
          command: [sleep, 1h]
          resources:
            requests: {{cpu: 100m}}
"""
WEB = """\
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    volcano.sh/job-name: hosts
  ports:
  - port: 80
    targetPort: 8080
"""


def _namespace(server: KubeServer, name: str) -> Iterator[str]:
    created = kubectl(server, "create", "namespace", name)
    assert created.returncode == 0, created.stderr
    yield name
    kubectl(server, "delete", "namespace", name, "--wait=false")


@pytest.fixture
def svc_namespace(kube_server: KubeServer) -> Iterator[str]:
    yield from _namespace(kube_server, "kubectl-svc")


@pytest.fixture
def quiet_namespace(kube_server: KubeServer) -> Iterator[str]:
    yield from _namespace(kube_server, "kubectl-svc-no-netpol")


def _get(server: KubeServer, namespace: str, *args: str) -> str:
    done = kubectl(server, "get", *args, namespace=namespace)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _hosts(server: KubeServer, namespace: str) -> str:
    return _get(server, namespace, "cm", "hosts-svc", "-o", r"jsonpath={.data.worker\.host}")


def _running_pods(server: KubeServer, namespace: str, count: int) -> list[list[str]]:
    def rows() -> list[list[str]] | None:
        table = _get(server, namespace, "pods", "-o", "wide").splitlines()
        found = [line.split() for line in table[1:]]
        running = [row for row in found if row[2] == "Running" and row[5] != "<none>"]
        return running if len(running) == count and len(found) == count else None

    found = wait_for(rows, timeout=90)
    assert found, _get(server, namespace, "pods", "-o", "wide")
    return list(found)


def _scale(server: KubeServer, namespace: str, replicas: int) -> None:
    patch = [
        {"op": "replace", "path": "/spec/tasks/0/replicas", "value": replicas},
        {"op": "replace", "path": "/spec/minAvailable", "value": min(replicas, 1)},
    ]
    done = kubectl(server, "patch", "vcjob", "hosts", "--type=json", "-p", json.dumps(patch),
                   namespace=namespace)  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_a_svc_job_has_its_service_config_map_and_network_policy(
    kube_server: KubeServer, svc_namespace: str
) -> None:
    ns = svc_namespace
    applied = kubectl(kube_server, "apply", "-f", "-", namespace=ns,
                      stdin=JOB.format(name="hosts", svc="[]"))  # fmt: skip
    assert applied.returncode == 0, applied.stderr
    pods = _running_pods(kube_server, ns, 2)

    # kubectl's tables, as kube-apiserver prints them.
    listed = _get(kube_server, ns, "svc,cm,netpol").splitlines()
    rows = {line.split()[0]: line.split() for line in listed if line and "NAME" not in line}
    assert rows["service/hosts"][1:5] == ["ClusterIP", "None", "<none>", "<none>"]
    assert rows["configmap/hosts-svc"][1] == "3"  # worker.host, VC_WORKER_HOSTS, VC_WORKER_NUM
    selector = f"volcano.sh/job-name=hosts,volcano.sh/job-namespace={ns}"
    assert rows["networkpolicy.networking.k8s.io/hosts"][1] == selector
    headers = [line.split()[:5] for line in listed if line.startswith("NAME")]
    assert ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)"] in headers

    # The host list the pods mount, and who owns the objects.
    assert _hosts(kube_server, ns) == "hosts-worker-0.hosts\nhosts-worker-1.hosts"
    assert _get(kube_server, ns, "cm", "hosts-svc", "-o", "jsonpath={.data.VC_WORKER_NUM}") == "2"
    for kind in ("svc/hosts", "cm/hosts-svc", "netpol/hosts"):
        owner = _get(kube_server, ns, kind, "-o",
                     "jsonpath={.metadata.ownerReferences[0].kind}/"
                     "{.metadata.ownerReferences[0].name}")  # fmt: skip
        assert owner == "Job/hosts", kind

    # Pods have addresses from their node's range; the Service's Endpoints list them.
    ips = sorted(row[5] for row in pods)
    for row in pods:
        node = row[6]
        cidr = _get(kube_server, ns, "node", node, "-o", "jsonpath={.spec.podCIDR}")
        assert ipaddress.ip_address(row[5]) in ipaddress.ip_network(cidr), (row, cidr)
        host = _get(kube_server, ns, "pod", row[0], "-o", "jsonpath={.status.hostIP}")
        internal = _get(kube_server, ns, "node", node, "-o",
                        'jsonpath={.status.addresses[?(@.type=="InternalIP")].address}')  # fmt: skip
        assert host == internal != ""

    def endpoints(name: str) -> list[str] | None:
        got = kubectl(kube_server, "get", "endpoints", name, namespace=ns)
        table = got.stdout.splitlines() if got.returncode == 0 else []
        shown = table[1].split()[1] if len(table) > 1 else ""
        return sorted(shown.split(",")) if shown not in ("", "<none>") else None

    assert wait_for(lambda: endpoints("hosts") == ips, timeout=30), endpoints("hosts")
    web = kubectl(kube_server, "apply", "-f", "-", namespace=ns, stdin=WEB)
    assert web.returncode == 0, web.stderr
    expected = sorted(f"{ip}:8080" for ip in ips)
    assert wait_for(lambda: endpoints("web") == expected, timeout=30), endpoints("web")
    described = kubectl(kube_server, "describe", "svc", "web", namespace=ns)  # reads the slices
    assert described.returncode == 0, described.stderr
    shown = [
        line.split()[1] for line in described.stdout.splitlines() if line.startswith("Endpoints:")
    ]
    assert shown, described.stdout
    assert sorted(shown[0].split(",")) == expected, described.stdout
    slices = _get(kube_server, ns, "endpointslices", "-l", "kubernetes.io/service-name=web")
    header, row = (line.split() for line in slices.splitlines())
    assert header == ["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"]
    assert row[0].startswith("web-")
    assert row[1:3] == ["IPv4", "8080"]
    assert sorted(row[3].split(",")) == ips
    cluster_ip = _get(kube_server, ns, "svc", "web", "-o", "jsonpath={.spec.clusterIP}")
    assert ipaddress.ip_address(cluster_ip) in ipaddress.ip_network("10.96.0.0/12")

    # Scaling rewrites the host list: grown, then empty at zero replicas.
    _scale(kube_server, ns, 3)
    three = "hosts-worker-0.hosts\nhosts-worker-1.hosts\nhosts-worker-2.hosts"
    assert wait_for(lambda: _hosts(kube_server, ns) == three, timeout=30), _hosts(kube_server, ns)
    _scale(kube_server, ns, 0)
    assert wait_for(lambda: _hosts(kube_server, ns) == "", timeout=30), _hosts(kube_server, ns)
    num = _get(kube_server, ns, "cm", "hosts-svc", "-o", "jsonpath={.data.VC_WORKER_NUM}")
    assert num == "0"

    # Deleting the job deletes its objects (the user's Service stays).
    deleted = kubectl(kube_server, "delete", "vcjob", "hosts", namespace=ns)
    assert deleted.returncode == 0, deleted.stderr

    def left() -> list[str]:
        names = _get(kube_server, ns, "svc,cm,netpol", "-o", "name").split()
        return sorted(name for name in names if not name.endswith("kube-root-ca.crt"))

    assert wait_for(lambda: left() == ["service/web"], timeout=30), left()


def test_disable_network_policy_leaves_the_job_without_one(
    kube_server: KubeServer, quiet_namespace: str
) -> None:
    ns = quiet_namespace
    svc = '["--disable-network-policy=true"]'
    applied = kubectl(kube_server, "apply", "-f", "-", namespace=ns,
                      stdin=JOB.format(name="quiet", svc=svc))  # fmt: skip
    assert applied.returncode == 0, applied.stderr
    _running_pods(kube_server, ns, 2)
    names = _get(kube_server, ns, "svc,cm,netpol", "-o", "name").split()
    assert sorted(names) == ["configmap/quiet-svc", "service/quiet"]
