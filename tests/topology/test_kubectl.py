"""HyperNodes through kubectl and the official Python client on a live server.

``kubectl create/get/get -o wide/describe/explain/delete`` with the CRD's short name and
columns (TIER, TIERNAME, NODECOUNT, AGE), the controller filling NODECOUNT, label discovery
seen with ``kubectl get hn -l volcano.sh/network-topology-source=label``, and
``CustomObjectsApi`` listing, reading and deleting HyperNodes.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import yaml
from kubernetes import client, config  # type: ignore[import-untyped]
from kubernetes.client.rest import ApiException  # type: ignore[import-untyped]

from tests.kube.server_kit import KubeServer, kubectl, wait_for
from tests.topology.kit import exact, hyper_node, regex

GROUP, VERSION, PLURAL = "topology.volcano.sh", "v1alpha1", "hypernodes"
LEAF = """\
apiVersion: topology.volcano.sh/v1alpha1
kind: HyperNode
metadata:
  name: rack-gpu
spec:
  tier: 1
  tierName: rack
  members:
  - type: Node
    selector:
      regexMatch:
        pattern: ^topo-gpu-
"""
SPINE = """\
apiVersion: topology.volcano.sh/v1alpha1
kind: HyperNode
metadata:
  name: spine
spec:
  tier: 2
  members:
  - type: HyperNode
    selector:
      exactMatch:
        name: rack-gpu
  - type: Node
    selector:
      labelMatch:
        matchLabels:
          rack: r2
"""
DISCOVERY = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: volcano-controller-configmap
  namespace: volcano-system
data:
  volcano-controller.conf: |
    networkTopologyDiscovery:
      - source: label
        enabled: true
        config:
          networkTopologyTypes:
            rack:
              - nodeLabel: rack
              - nodeLabel: kubernetes.io/hostname
"""


def _ok(
    server: KubeServer, *args: str, stdin: str | None = None, namespace: str = "default"
) -> str:
    done = kubectl(server, *args, stdin=stdin, namespace=namespace)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _rows(server: KubeServer, *args: str) -> list[list[str]]:
    return [line.split() for line in _ok(server, "get", "hn", *args).splitlines()]


def test_kubectl_creates_shows_explains_and_deletes_hyper_nodes(
    topology_server: KubeServer,
) -> None:
    server = topology_server
    assert _ok(server, "create", "-f", "-", stdin=LEAF).strip() == (
        "hypernode.topology.volcano.sh/rack-gpu created"
    )
    _ok(server, "apply", "-f", "-", stdin=SPINE)

    def counted() -> list[list[str]] | None:
        rows = _rows(server, "rack-gpu", "spine")
        # spine has no tierName: an empty cell, as for a CRD's missing column.
        return (
            rows
            if [row[:-1] for row in rows[1:]]
            == [
                ["rack-gpu", "1", "rack", "2"],
                ["spine", "2", "3"],
            ]
            else None
        )

    rows = wait_for(counted, timeout=60)
    assert rows[0] == ["NAME", "TIER", "TIERNAME", "NODECOUNT", "AGE"]
    wide = _rows(server, "-o", "wide")
    assert wide[0] == ["NAME", "TIER", "TIERNAME", "NODECOUNT", "AGE"]
    assert [row[0] for row in wide[1:]] == ["rack-gpu", "spine"]
    full = _ok(server, "get", "hypernodes.topology.volcano.sh", "spine", "-o", "yaml")
    assert yaml.safe_load(full)["status"] == {"nodeCount": 3}

    described = _ok(server, "describe", "hn", "rack-gpu")
    assert "Name:         rack-gpu" in described
    assert "Kind:         HyperNode" in described
    assert "Pattern:  ^topo-gpu-" in described
    assert "Node Count:  2" in described
    explained = _ok(server, "explain", "hypernode.spec.members.selector")
    assert "KIND:       HyperNode" in explained
    for field in ("exactMatch", "regexMatch", "labelMatch"):
        assert field in explained
    assert "GROUP:      topology.volcano.sh" in explained

    refused = kubectl(server, "create", "-f", "-", stdin=LEAF.replace("^topo-gpu-", "topo-(gpu"))
    assert refused.returncode != 0
    assert "member regexMatch pattern is invalid: unmatched parentheses" in refused.stderr

    assert "deleted" in _ok(server, "delete", "hn", "spine", "rack-gpu")
    assert _ok(server, "get", "hn", "--ignore-not-found").strip() == ""


def test_label_discovery_on_the_live_server(topology_server: KubeServer) -> None:
    server = topology_server
    _ok(server, "create", "namespace", "volcano-system")
    _ok(server, "apply", "-f", "-", stdin=DISCOVERY, namespace="volcano-system")

    def discovered() -> list[list[str]] | None:
        rows = _rows(server, "-l", "volcano.sh/network-topology-source=label")[1:]
        return rows if sorted(row[3] for row in rows) == ["1", "2"] else None

    rows = wait_for(discovered, timeout=60)
    assert all(row[0].startswith("hypernode-rack-tier1-") for row in rows)
    assert {(row[1], row[2]) for row in rows} == {("1", "rack")}

    _ok(server, "delete", "configmap", "volcano-controller-configmap", namespace="volcano-system")
    for row in rows:
        _ok(server, "delete", "hn", row[0])


@pytest.fixture
def api(topology_server: KubeServer) -> Iterator[client.ApiClient]:
    """Return an API client made from the kubeconfig, as a user's script makes it."""
    with config.new_client_from_config(config_file=str(topology_server.kubeconfig)) as made:
        yield made


def test_the_official_client_lists_reads_and_deletes_hyper_nodes(api: client.ApiClient) -> None:
    objects = client.CustomObjectsApi(api)
    for manifest in (
        hyper_node("py-leaf", 1, regex("^topo-cpu-")),
        hyper_node("py-top", 2, exact("py-leaf", "HyperNode")),
    ):
        created = objects.create_cluster_custom_object(GROUP, VERSION, PLURAL, manifest)
        assert created["kind"] == "HyperNode"

    listed = objects.list_cluster_custom_object(GROUP, VERSION, PLURAL)
    assert listed["kind"] == "HyperNodeList"
    assert {"py-leaf", "py-top"} <= {item["metadata"]["name"] for item in listed["items"]}

    def counted() -> bool:
        top = objects.get_cluster_custom_object_status(GROUP, VERSION, PLURAL, "py-top")
        return bool(top.get("status", {}).get("nodeCount") == 1)

    wait_for(counted, timeout=60)
    with pytest.raises(ApiException) as refused:
        objects.create_cluster_custom_object(GROUP, VERSION, PLURAL, hyper_node("py-bad", -1,
                                             exact("topo-cpu-0")))  # fmt: skip
    assert refused.value.status == 422
    for name in ("py-top", "py-leaf"):
        objects.delete_cluster_custom_object(GROUP, VERSION, PLURAL, name)
    with pytest.raises(ApiException) as gone:
        objects.get_cluster_custom_object(GROUP, VERSION, PLURAL, "py-leaf")
    assert gone.value.status == 404
