"""A job's page and the network topology: the mode and tier limit it asked for, and the
HyperNode its gang landed in (the lowest-tier one holding all its bound pods), linked."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.models import Namespace, Node, Pod
from jobs.models import Job
from topology.models import HyperNode

pytestmark = pytest.mark.django_db

Login = Callable[..., Any]


def _exact(*names: str, member_type: str = "Node") -> list[dict[str, Any]]:
    return [{"type": member_type, "selector": {"exactMatch": {"name": n}}} for n in names]


def _network() -> dict[str, Node]:
    nodes = {
        n: Node.objects.create(name=n, allocatable={"cpu": 8000}) for n in ("jt-0", "jt-1", "jt-2")
    }
    HyperNode.objects.create(
        name="jt-rack-0", tier=1, tier_name="rack", members=_exact("jt-0", "jt-1")
    )
    HyperNode.objects.create(name="jt-rack-1", tier=1, members=_exact("jt-2"))
    HyperNode.objects.create(
        name="jt-spine", tier=2, members=_exact("jt-rack-0", "jt-rack-1", member_type="HyperNode")
    )
    return nodes


def _job(name: str, nodes: list[Node | None], **fields: Any) -> Job:
    Namespace.objects.get_or_create(name="default")
    job = Job.objects.create(namespace="default", name=name, phase="Running", **fields)
    for i, node in enumerate(nodes):
        Pod.objects.create(namespace="default", name=f"{name}-{i}", job=job, node=node,
                           phase="Running" if node else "Pending")  # fmt: skip
    return job


def _body(client: Any, name: str) -> str:
    response = client.get(f"/jobs/default/{name}/", headers={"HX-Request": "true",
                                                             "HX-Target": "job-body"})  # fmt: skip
    assert response.status_code == 200
    return str(response.content.decode())


def test_a_hard_topology_job_shows_its_mode_limit_and_where_it_landed(console_login: Login) -> None:
    nodes = _network()
    _job("gang", [nodes["jt-0"], nodes["jt-1"]],
         network_topology={"mode": "hard", "highestTierAllowed": 1})  # fmt: skip
    body = _body(console_login("vera", "viewer", ("default",)), "gang")
    assert "Network topology" in body
    assert "<code>hard</code>" in body
    assert "up to tier 1" in body
    assert "Placed in</dt>" in body
    assert 'href="/topology/jt-rack-0/"' in body
    assert "tier 1 · rack" in body


def test_a_gang_across_racks_is_placed_in_their_common_parent(console_login: Login) -> None:
    nodes = _network()
    _job("wide", [nodes["jt-0"], nodes["jt-2"], None],
         network_topology={"mode": "soft", "highestTierName": "rack"})  # fmt: skip
    body = _body(console_login("vera", "viewer", ("default",)), "wide")
    assert "<code>soft</code>" in body
    assert "none (soft mode)" in body
    assert 'href="/topology/jt-spine/"' in body


def test_a_job_without_topology_or_bound_pods_shows_no_topology_card(console_login: Login) -> None:
    _network()
    _job("plain", [None, None])
    body = _body(console_login("vera", "viewer", ("default",)), "plain")
    assert 'id="job-topology"' not in body
    _job("waiting", [None], network_topology={"mode": "hard", "highestTierName": "rack"})
    body = _body(console_login("val", "viewer", ("default",)), "waiting")
    assert "up to the tier named rack" in body
    assert "no HyperNode holds all its bound pods yet" in body


def test_the_placement_costs_the_same_queries_for_few_or_many_pods(console_login: Login) -> None:
    nodes = _network()
    client = console_login("olga", "operator")
    _job("few", [nodes["jt-0"]], network_topology={"mode": "hard", "highestTierAllowed": 2})
    _job("many", [nodes[f"jt-{i % 3}"] for i in range(30)],
         network_topology={"mode": "hard", "highestTierAllowed": 2})  # fmt: skip
    with CaptureQueriesContext(connection) as few:
        assert 'href="/topology/jt-rack-0/"' in _body(client, "few")
    with CaptureQueriesContext(connection) as many:
        assert 'href="/topology/jt-spine/"' in _body(client, "many")
    assert len(many) == len(few)
