"""``/status`` is the controller's part of a HyperNode: a create drops the status it is sent,
a status write changes nothing else, and only operators may make one."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from tests.topology.kit import HYPER_NODES, exact, hyper_node, post

pytestmark = pytest.mark.django_db


def test_a_create_drops_the_status_and_a_status_write_keeps_the_spec(
    operator: Client, viewer: Client
) -> None:
    manifest = hyper_node("s0", 1, exact("node-0"))
    manifest["status"] = {"nodeCount": 7}
    created = post(operator, HYPER_NODES, manifest)
    assert created.status_code == 201, created.content
    assert "status" not in created.json()

    current = operator.get(f"{HYPER_NODES}/s0").json()
    current["status"] = {"nodeCount": 3}
    current["spec"]["tier"] = 5
    body = json.dumps(current)
    written = operator.put(f"{HYPER_NODES}/s0/status", body, content_type="application/json")

    assert written.status_code == 200, written.content
    stored = operator.get(f"{HYPER_NODES}/s0").json()
    assert (stored["status"], stored["spec"]["tier"]) == ({"nodeCount": 3}, 1)
    refused = viewer.put(f"{HYPER_NODES}/s0/status", body, content_type="application/json")
    assert refused.status_code == 403
