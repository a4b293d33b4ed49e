"""What the topology tests share: HyperNode and Node manifests, and posting them."""

from __future__ import annotations

import json
from typing import Any

from django.test import Client

HYPER_NODES = "/apis/topology.volcano.sh/v1alpha1/hypernodes"
NODES = "/api/v1/nodes"


def hyper_node(name: str, tier: int = 1, *members: dict[str, Any], **spec: Any) -> dict[str, Any]:
    """Return a HyperNode manifest with ``members`` (and any other spec fields)."""
    body: dict[str, Any] = {"tier": tier, **spec}
    if members:
        body["members"] = list(members)
    return {
        "apiVersion": "topology.volcano.sh/v1alpha1",
        "kind": "HyperNode",
        "metadata": {"name": name},
        "spec": body,
    }


def exact(name: str, member_type: str = "Node") -> dict[str, Any]:
    """Return a member naming one node (or HyperNode) exactly."""
    return {"type": member_type, "selector": {"exactMatch": {"name": name}}}


def regex(pattern: str, member_type: str = "Node") -> dict[str, Any]:
    """Return a member selecting nodes by a regular expression on their names."""
    return {"type": member_type, "selector": {"regexMatch": {"pattern": pattern}}}


def by_labels(member_type: str = "Node", **labels: str) -> dict[str, Any]:
    """Return a member selecting nodes by their labels."""
    return {"type": member_type, "selector": {"labelMatch": {"matchLabels": labels}}}


def node(name: str, **labels: str) -> dict[str, Any]:
    """Return a Node manifest with ``labels``."""
    amounts = {"cpu": "8", "memory": "32Gi", "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "status": {"capacity": amounts, "allocatable": amounts},
    }


def post(client: Client, path: str, body: Any) -> Any:
    """POST ``body`` as JSON; return the response."""
    return client.post(path, json.dumps(body), content_type="application/json")


def causes(response: Any) -> list[tuple[str, str]]:
    """Return the (field, message) of every cause of a 422 answer."""
    assert response.status_code == 422, response.content
    status = response.json()
    assert status["reason"] == "Invalid", status
    return [(cause["field"], cause["message"]) for cause in status["details"]["causes"]]
