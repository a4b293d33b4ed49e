"""``status.nodeCount``: the existing nodes a HyperNode covers, kept current by its controller.

Node members count by exact name, regex and labels (each node once), a parent counts its
children's nodes, a name with no node counts nothing, and the count follows nodes as they
come, change labels and go.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from tests.topology.kit import HYPER_NODES, NODES, by_labels, exact, hyper_node, node, post, regex
from topology.controller import reconcile_hyper_nodes

pytestmark = pytest.mark.django_db


def _counts(client: Client) -> dict[str, int | None]:
    reconcile_hyper_nodes(timezone.now())
    items = client.get(HYPER_NODES).json()["items"]
    return {item["metadata"]["name"]: item.get("status", {}).get("nodeCount") for item in items}


def _create(client: Client, *manifests: dict) -> None:  # type: ignore[type-arg]
    for manifest in manifests:
        path = NODES if manifest["kind"] == "Node" else HYPER_NODES
        response = post(client, path, manifest)
        assert response.status_code == 201, response.content


def test_members_count_each_existing_node_once_and_parents_count_their_childrens(
    operator: Client,
) -> None:
    _create(
        operator,
        node("gpu-0", rack="r1"), node("gpu-1", rack="r1"), node("gpu-2", rack="r2"),
        node("cpu-0", rack="r2"),
        # gpu-0 is named, matched and labelled: one node. ghost does not exist.
        hyper_node("leaf-a", 1, exact("gpu-0"), exact("ghost"), regex("^gpu-[01]$"),
                   by_labels(rack="r1")),
        hyper_node("leaf-b", 1, by_labels(rack="r2")),
        hyper_node("spine", 2, exact("leaf-a", "HyperNode"), exact("leaf-b", "HyperNode"),
                   exact("cpu-0")),
        hyper_node("empty", 1, exact("ghost")),
    )  # fmt: skip

    assert _counts(operator) == {"leaf-a": 2, "leaf-b": 2, "spine": 4, "empty": None}
    shown = operator.get(f"{HYPER_NODES}/spine").json()
    assert shown["status"] == {"nodeCount": 4}


def test_the_count_follows_nodes_that_come_change_labels_and_go(operator: Client) -> None:
    _create(operator, node("n-0", rack="r1"), hyper_node("rack-r1", 1, by_labels(rack="r1")),
            hyper_node("named", 1, exact("n-9")))  # fmt: skip
    assert _counts(operator) == {"rack-r1": 1, "named": None}

    _create(operator, node("n-1", rack="r1"), node("n-9"))
    assert _counts(operator) == {"rack-r1": 2, "named": 1}

    relabel = {"metadata": {"labels": {"rack": "r2"}}}
    changed = operator.patch(f"{NODES}/n-0", relabel, content_type="application/merge-patch+json")
    assert changed.status_code == 200, changed.content
    assert _counts(operator) == {"rack-r1": 1, "named": 1}

    assert operator.delete(f"{NODES}/n-9").status_code == 200
    assert _counts(operator) == {"rack-r1": 1, "named": None}


def test_a_new_child_adds_its_nodes_to_its_parent(operator: Client) -> None:
    _create(operator, node("m-0"), node("m-1"),
            hyper_node("top", 2, exact("child", "HyperNode")))  # fmt: skip
    assert _counts(operator) == {"top": None}

    _create(operator, hyper_node("child", 1, regex("^m-")))

    assert _counts(operator) == {"top": 2, "child": 2}
