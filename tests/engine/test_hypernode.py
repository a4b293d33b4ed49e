"""HyperNodes: member selectors, the session's tree, LCA, manifests and the flat path's silence."""

from __future__ import annotations

import pytest

from apis.errors import ManifestError
from scheduler.engine.api.hypernode import (
    TOP_HYPERNODE,
    HyperNodeInfo,
    HyperNodeMember,
    HyperNodeTree,
    NetworkTopology,
)
from scheduler.engine.api.pdb_info import PdbSelector
from scheduler.engine.util.hypernode_manifest import read_hypernode, read_network_topology
from scheduler.engine.util.scenario import load_scenario


def _exact(name: str, kind: str = "Node") -> HyperNodeMember:
    return HyperNodeMember(type=kind, exact_match=name)


def test_regex_member_matches_anywhere_in_the_name_unless_anchored() -> None:
    loose = HyperNodeMember(type="Node", regex_match="rack1")
    anchored = HyperNodeMember(type="Node", regex_match="^rack1-")
    assert loose.matches_node("dc-rack1-n3", {})
    assert not anchored.matches_node("dc-rack1-n3", {})
    assert anchored.matches_node("rack1-n3", {})


def test_label_member_needs_every_label_and_an_empty_selector_matches_nothing() -> None:
    selector = PdbSelector(match_labels=(("zone", "a"),), expressions=(("gpu", "Exists", ()),))
    member = HyperNodeMember(type="Node", label_match=selector)
    assert member.matches_node("n1", {"zone": "a", "gpu": "yes"})
    assert not member.matches_node("n1", {"zone": "a"})
    assert not HyperNodeMember(type="Node", label_match=PdbSelector()).matches_node("n1", {})


def _tree() -> HyperNodeTree:
    names = ["a1", "a2", "b1", "b2", "lonely"]
    labels = [{}, {}, {"rack": "b"}, {"rack": "b"}, {}]
    return HyperNodeTree.build(
        [
            HyperNodeInfo("leaf-a", 1, "switch", (_exact("a1"), _exact("a2"), _exact("ghost"))),
            HyperNodeInfo(
                "leaf-b",
                1,
                "switch",
                (HyperNodeMember("Node", label_match=PdbSelector((("rack", "b"),))),),
            ),
            HyperNodeInfo(
                "spine", 2, "spine", (_exact("leaf-a", "HyperNode"), _exact("leaf-b", "HyperNode"))
            ),
        ],
        names,
        labels,
    )


def test_tree_collects_real_nodes_through_children_and_adds_the_virtual_top() -> None:
    tree = _tree()
    assert tree.rows["leaf-a"].tolist() == [0, 1]  # "ghost" is no node: no effect
    assert tree.rows["spine"].tolist() == [0, 1, 2, 3]
    assert tree.rows[TOP_HYPERNODE].tolist() == [0, 1, 2, 3, 4]
    assert tree.top_tier == 3
    assert tree.parent["spine"] == TOP_HYPERNODE
    assert tree.tier_names == {"switch": 1, "spine": 2}
    assert tree.leaf_of_row == ["leaf-a", "leaf-a", "leaf-b", "leaf-b", ""]


def test_lca_of_two_leaves_is_their_spine_and_the_top_joins_everything() -> None:
    tree = _tree()
    assert tree.lca("leaf-a", "leaf-b") == "spine"
    assert tree.lca("leaf-a", "leaf-a") == "leaf-a"
    assert tree.lca("leaf-a", TOP_HYPERNODE) == TOP_HYPERNODE
    assert tree.lca("", "leaf-b") == "leaf-b"
    assert tree.lowest_holding([0, 1]) == "leaf-a"
    assert tree.lowest_holding([0, 2]) == "spine"
    assert tree.lowest_holding([0, 4]) == TOP_HYPERNODE


def test_without_hypernodes_the_top_is_tier_one() -> None:
    tree = HyperNodeTree.build([], ["n1"], [{}])
    assert tree.top_tier == 1
    assert not tree.has_real()


def _manifest(spec: object) -> dict[str, object]:
    return {
        "apiVersion": "topology.volcano.sh/v1alpha1",
        "kind": "HyperNode",
        "metadata": {"name": "s0"},
        "spec": spec,
    }


def test_read_hypernode_reads_members() -> None:
    info = read_hypernode(
        _manifest(
            {
                "tier": 1,
                "tierName": "leaf",
                "members": [
                    {"type": "Node", "selector": {"regexMatch": {"pattern": "^n[0-9]$"}}},
                    {"type": "HyperNode", "selector": {"exactMatch": {"name": "s1"}}},
                ],
            }
        ),
        {"name": "s0"},
        "objects[0]",
    )
    assert info.tier == 1
    assert info.members[0].regex_match == "^n[0-9]$"
    assert info.members[1] == HyperNodeMember(type="HyperNode", exact_match="s1")


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"tier": -1}, "objects[0].spec.tier"),
        (
            {"tier": 1, "members": [{"type": "Rack", "selector": {}}]},
            "objects[0].spec.members[0].type",
        ),
        (
            {
                "tier": 1,
                "members": [{"type": "HyperNode", "selector": {"regexMatch": {"pattern": "x"}}}],
            },
            "objects[0].spec.members[0].selector.regexMatch",
        ),
        (
            {
                "tier": 1,
                "members": [{"type": "Node", "selector": {"regexMatch": {"pattern": "("}}}],
            },
            "objects[0].spec.members[0].selector.regexMatch.pattern",
        ),
        (
            {"tier": 1, "members": [{"type": "Node", "selector": {}}]},
            "objects[0].spec.members[0].selector",
        ),
    ],
)
def test_bad_hypernode_names_the_field(spec: object, field: str) -> None:
    with pytest.raises(ManifestError) as err:
        read_hypernode(_manifest(spec), {"name": "s0"}, "objects[0]")
    assert err.value.field == field


def test_network_topology_defaults_to_hard_and_refuses_both_tier_fields() -> None:
    assert read_network_topology({"highestTierAllowed": 2}, "spec.networkTopology") == (
        NetworkTopology("hard", 2, "")
    )
    assert read_network_topology(None, "spec.networkTopology") is None
    with pytest.raises(ManifestError):
        read_network_topology(
            {"mode": "hard", "highestTierAllowed": 1, "highestTierName": "x"},
            "spec.networkTopology",
        )
    with pytest.raises(ManifestError) as err:
        read_network_topology({"mode": "strict"}, "spec.networkTopology")
    assert err.value.field == "spec.networkTopology.mode"


_FLAT = """
name: flat
config: |
  actions: "allocate"
  tiers:
  - plugins:
    - name: gang
    - name: predicates
    - name: network-topology-aware
objects:
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
  status: {allocatable: {cpu: "2", memory: 2Gi, pods: "10"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: p1, namespace: ns}
  spec:
    containers: [{name: main, resources: {requests: {cpu: "1"}}}]
  status: {phase: Pending}
"""


def test_flat_cluster_builds_no_tree_and_registers_no_topology_hook() -> None:
    from scheduler.engine.framework import open_session

    loaded = load_scenario(_FLAT)
    ssn = open_session(loaded.cluster, loaded.conf)
    assert ssn.hypernodes is None
    assert not ssn.has_fns("live_node_order")
    assert not ssn.has_fns("hypernode_gradient")
