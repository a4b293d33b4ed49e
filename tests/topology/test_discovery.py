"""Label discovery: HyperNodes built from node labels, as Volcano's HyperNode controller does.

The ConfigMap ``volcano-system/volcano-controller-configmap`` enables the ``label`` source; the
controller then keeps one HyperNode per tier label value, marked with
``volcano.sh/network-topology-source: label``, and deletes those no node stands for. Hand-
written HyperNodes are never touched.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from core.models import ConfigMap, Namespace
from tests.topology.kit import HYPER_NODES, NODES, exact, hyper_node, node, post
from topology.controller import reconcile_hyper_nodes

pytestmark = pytest.mark.django_db

CONFIG = """\
networkTopologyDiscovery:
  - source: ufm
    enabled: false
  - source: label
    enabled: true
    config:
      networkTopologyTypes:
        topologyA3:
          - nodeLabel: volcano.sh/hypercluster
          - nodeLabel: volcano.sh/hypernode
          - nodeLabel: kubernetes.io/hostname
"""
SOURCE = "volcano.sh/network-topology-source"
TIER1 = "volcano.sh/hypernode"
TIER2 = "volcano.sh/hypercluster"


def _configure(text: str = CONFIG) -> None:
    Namespace.objects.get_or_create(name="volcano-system")
    ConfigMap.objects.update_or_create(
        namespace="volcano-system",
        name="volcano-controller-configmap",
        defaults={"data": {"volcano-controller.conf": text}},
    )


def _labelled(name: str, hypernode: str, hypercluster: str) -> dict[str, Any]:
    return node(name, **{"kubernetes.io/hostname": name, TIER1: hypernode, TIER2: hypercluster})


def _discovered(client: Client) -> dict[tuple[int, str], dict[str, Any]]:
    """Run the controller; return the discovered HyperNodes by (tier, their label's value)."""
    reconcile_hyper_nodes(timezone.now())
    answer = client.get(f"{HYPER_NODES}?labelSelector={SOURCE}%3Dlabel")
    assert answer.status_code == 200, answer.content
    found = {}
    for item in answer.json()["items"]:
        tier = item["spec"]["tier"]
        key = item["spec"]["tierName"]
        found[(tier, item["metadata"]["labels"][key])] = item
    return found


def _members(item: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m["type"], m["selector"]["exactMatch"]["name"]) for m in item["spec"]["members"]]


def _create(client: Client, *manifests: dict[str, Any]) -> None:
    for manifest in manifests:
        path = NODES if manifest["kind"] == "Node" else HYPER_NODES
        response = post(client, path, manifest)
        assert response.status_code == 201, response.content


def test_node_labels_make_a_two_tier_tree(operator: Client) -> None:
    _configure()
    _create(operator, _labelled("node0", "s0", "s4"), _labelled("node1", "s0", "s4"),
            _labelled("node2", "s1", "s4"), _labelled("node3", "s2", "s5"),
            node("plain"))  # fmt: skip

    found = _discovered(operator)

    assert sorted(found) == [(1, "s0"), (1, "s1"), (1, "s2"), (2, "s4"), (2, "s5")]
    s0, s1, s2, s4, s5 = (found[key] for key in sorted(found))
    for item, tier in ((s0, 1), (s4, 2)):
        name = item["metadata"]["name"]
        assert re.fullmatch(rf"hypernode-topologya3-tier{tier}-[a-z0-9]{{5}}", name), name
        assert item["metadata"]["labels"][SOURCE] == "label"
    assert s0["spec"]["tierName"] == TIER1
    assert _members(s0) == [("Node", "node0"), ("Node", "node1")]
    assert s4["spec"]["tierName"] == TIER2
    assert _members(s4) == sorted(
        [("HyperNode", s0["metadata"]["name"]), ("HyperNode", s1["metadata"]["name"])]
    )
    assert _members(s5) == [("HyperNode", s2["metadata"]["name"])]
    # The controller counted them in the same pass.
    reconcile_hyper_nodes(timezone.now())
    counts = {
        key: item.get("status", {}).get("nodeCount") for key, item in _discovered(operator).items()
    }
    assert counts == {(1, "s0"): 2, (1, "s1"): 1, (1, "s2"): 1, (2, "s4"): 3, (2, "s5"): 1}


def test_a_hyper_node_goes_when_its_nodes_go_and_the_others_keep_their_names(
    operator: Client,
) -> None:
    _configure()
    _create(operator, _labelled("node0", "s0", "s4"), _labelled("node1", "s1", "s4"),
            _labelled("node2", "s2", "s5"))  # fmt: skip
    before = {key: item["metadata"]["name"] for key, item in _discovered(operator).items()}

    assert operator.delete(f"{NODES}/node2").status_code == 200
    after = _discovered(operator)

    assert sorted(after) == [(1, "s0"), (1, "s1"), (2, "s4")]
    assert {key: item["metadata"]["name"] for key, item in after.items()} == {
        key: before[key] for key in after
    }
    gone = operator.get(f"{HYPER_NODES}/{before[(1, 's2')]}")
    assert gone.status_code == 404


def test_a_relabelled_node_moves_to_its_new_hyper_node(operator: Client) -> None:
    _configure()
    _create(operator, _labelled("node0", "s0", "s4"), _labelled("node1", "s0", "s4"))
    s0 = _discovered(operator)[(1, "s0")]["metadata"]["name"]

    relabel = {"metadata": {"labels": {TIER1: "s1"}}}
    patched = operator.patch(f"{NODES}/node1", relabel, content_type="application/merge-patch+json")
    assert patched.status_code == 200, patched.content
    found = _discovered(operator)

    assert _members(found[(1, "s0")]) == [("Node", "node0")]
    assert found[(1, "s0")]["metadata"]["name"] == s0
    assert found[(1, "s0")]["metadata"]["generation"] == 2
    assert _members(found[(1, "s1")]) == [("Node", "node1")]
    assert len(found[(2, "s4")]["spec"]["members"]) == 2


def test_hand_written_hyper_nodes_are_never_touched(operator: Client) -> None:
    _configure()
    _create(operator, _labelled("node0", "s0", "s4"),
            hyper_node("manual", 1, exact("node0"), tierName="rack"))  # fmt: skip
    _discovered(operator)

    assert operator.delete(f"{NODES}/node0").status_code == 200
    assert _discovered(operator) == {}

    manual = operator.get(f"{HYPER_NODES}/manual").json()
    assert manual["spec"] == {"tier": 1, "tierName": "rack", "members": [exact("node0")]}
    assert SOURCE not in manual["metadata"].get("labels", {})


def test_without_an_enabled_label_source_nothing_is_discovered(operator: Client) -> None:
    _create(operator, _labelled("node0", "s0", "s4"))
    assert _discovered(operator) == {}

    _configure(CONFIG.replace("enabled: true", "enabled: false"))
    assert _discovered(operator) == {}

    _configure("networkTopologyDiscovery: [unclosed")
    assert _discovered(operator) == {}

    _configure()
    assert sorted(_discovered(operator)) == [(1, "s0"), (2, "s4")]


def test_a_topology_type_naming_a_label_twice_is_skipped(operator: Client) -> None:
    _configure(CONFIG.replace("volcano.sh/hypercluster", "volcano.sh/hypernode"))
    _create(operator, _labelled("node0", "s0", "s4"))

    assert _discovered(operator) == {}
