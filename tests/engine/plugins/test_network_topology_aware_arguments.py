"""network-topology-aware's arguments: defaults, customized values, values it replaces or refuses.

From Volcano's ``TestNew`` (``network_topology_aware_test.go``), which compares the parsed
weights; here each reading shows in the scores it gives: negative weights and a negative fading
score as the defaults do, a given weight scales every score.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from apis.errors import ConfError
from scheduler.engine.framework import Session
from tests.engine.plugins.network_topology_aware_kit import hard_job, hypernode, node, pod, session

HYPERNODES = ["a", "b", "spine"]


def _session(arguments: dict[str, Any] | None) -> Session:
    objects = [
        node("a1", "4", "8Gi", **{"example.com/foo": "4"}),
        node("a2", "4", "8Gi", **{"example.com/foo": "4"}),
        node("b1", "8", "8Gi", **{"example.com/foo": "4"}),
        hypernode("a", 1, ["a1", "a2"]), hypernode("b", 1, ["b1"]),
        hypernode("spine", 2, ["a", "b"], "HyperNode"),
        pod("busy", "other", "a1", "3", memory="1Gi"),
        pod("normal", "other", "", "1", memory="1Gi", **{"example.com/foo": "1"}),
        *hard_job("pg1", "ns1", "1", 2),
    ]  # fmt: skip
    return session(objects, arguments)


def _scores(arguments: dict[str, Any] | None) -> tuple[dict[str, float], list[float]]:
    """Return the HyperNode order of ns1/pg1 and the node scores of the normal pod."""
    ssn = _session(arguments)
    order = ssn.hypernode_order(ssn.jobs["ns1/pg1"], HYPERNODES)
    task = next(t for j in ssn.jobs.values() for t in j.tasks.values() if t.name == "normal")
    rows = np.arange(len(ssn.node_list), dtype=np.int64)
    nodes = ssn.flat_fns("live_node_order")[0](task, rows, np.zeros(len(rows)))
    if nodes is None:  # nothing added to the node scores
        nodes = np.zeros(len(rows))
    return order, [round(float(v), 6) for v in nodes]


DEFAULTS = {
    "weight": 1,
    "hypernode.binpack.cpu": 1,
    "hypernode.binpack.memory": 1,
    "hypernode.binpack.normal-pod.enable": True,
    "hypernode.binpack.normal-pod.fading": 0.8,
    "hypernode.gradient.evict.max-hypernodes": 8,
}


def test_no_arguments_score_as_the_documented_defaults() -> None:
    assert _scores(None) == _scores(DEFAULTS)


def test_negative_weights_and_fading_are_replaced_by_the_defaults() -> None:
    invalid = {
        "weight": -1,
        "hypernode.binpack.cpu": -1,
        "hypernode.binpack.memory": -1,
        "hypernode.binpack.normal-pod.fading": -1,
    }
    assert _scores(invalid) == _scores(None)


def test_a_listed_resource_with_a_negative_weight_weighs_1() -> None:
    listed = {"hypernode.binpack.resources": "nvidia.com/gpuxxx, example.com/foo"}
    negative = {**listed, "hypernode.binpack.resources.example.com/foo": -1}
    one = {**listed, "hypernode.binpack.resources.example.com/foo": 1}
    assert _scores(negative) == _scores(one)
    assert _scores(one) != _scores(None)  # foo is binpacked only when listed


def test_a_weight_for_an_unlisted_resource_changes_nothing() -> None:
    # Volcano's "customized valid" case: a weight under a name the list does not hold is unused
    listed = {"hypernode.binpack.resources": "example.com/foo"}
    assert _scores({**listed, "hypernode.binpack.resources.nvidia.com/gpuxxx": 5}) == _scores(
        listed
    )


def test_the_weight_scales_every_score() -> None:
    order, nodes = _scores({"weight": 2})
    base_order, base_nodes = _scores(None)
    assert order == {name: 2 * score for name, score in base_order.items()}
    assert nodes == pytest.approx([2 * v for v in base_nodes])
    assert any(base_nodes)
    assert any(base_order.values())


def test_normal_pods_are_not_scored_when_disabled() -> None:
    _order, nodes = _scores({"hypernode.binpack.normal-pod.enable": False})
    assert nodes == [0.0, 0.0, 0.0]


def test_a_non_boolean_enable_is_refused() -> None:
    # Volcano keeps its default silently; this engine's configuration refuses the value, naming it
    with pytest.raises(ConfError, match=r"normal-pod\.enable"):
        _session({"hypernode.binpack.normal-pod.enable": "a"})
