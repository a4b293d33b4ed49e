"""The Topology pages as each role sees them: the HyperNode tree from the top tier down, each
HyperNode's free resources, members and nodes, the jobs that landed in it, the empty state."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from core.models import Namespace, Node, Pod
from jobs.models import Job
from scheduler.hypernode_tree import topology
from tests.scheduler.factories import GI, make_node
from topology.models import HyperNode

pytestmark = pytest.mark.django_db

Login = Callable[..., Client]


def _exact(*names: str, member_type: str = "Node") -> list[dict[str, Any]]:
    return [{"type": member_type, "selector": {"exactMatch": {"name": n}}} for n in names]


def _hyper_node(name: str, tier: int, members: list[dict[str, Any]], **fields: Any) -> HyperNode:
    return HyperNode.objects.create(name=name, tier=tier, members=members, **fields)


def _job(name: str, nodes: list[Node], *, namespace: str = "default", cpu: int = 1,
         phase: str = "Running") -> Job:  # fmt: skip
    Namespace.objects.get_or_create(name=namespace)
    job = Job.objects.create(namespace=namespace, name=name, phase="Running")
    for i, node in enumerate(nodes):
        Pod.objects.create(
            namespace=namespace, name=f"{name}-{i}", job=job, node=node, phase=phase,
            requests={"cpu": cpu * 1000, "memory": GI}, cpu_milli=cpu * 1000, memory_milli=GI,
        )  # fmt: skip
    return job


def _two_tiers() -> dict[str, Node]:
    """spine (tier 2) over rack-a (s-a0, s-a1) and rack-b (s-b0, s-b1); 8 cores, 16 GiB each."""
    nodes = {n: make_node(n, cpu=8, memory_gi=16) for n in ("s-a0", "s-a1", "s-b0", "s-b1")}
    _hyper_node("rack-a", 1, _exact("s-a0", "s-a1"), tier_name="rack")
    _hyper_node("rack-b", 1, _exact("s-b0", "s-b1"), tier_name="rack")
    _hyper_node("spine", 2, _exact("rack-a", "rack-b", member_type="HyperNode"), tier_name="spine")
    return nodes


def _fragment(client: Client, url: str, target: str) -> str:
    response = client.get(url, headers={"HX-Request": "true", "HX-Target": target})
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("role", ["viewer", "submitter", "operator", "admin"])
def test_every_role_reads_the_tree_top_tier_first(console_login: Login, role: str) -> None:
    _two_tiers()
    page = console_login("reader", role).get("/topology/")
    assert page.status_code == 200
    text = page.content.decode()
    spine, a, b = (text.index(f'href="/topology/{n}/"') for n in ("spine", "rack-a", "rack-b"))
    assert spine < a < b  # the parent first, its children below it in name order
    assert "tier 2 · spine" in text
    assert "tier 1 · rack" in text
    assert 'href="/topology/"' in text  # the navigation's entry


def test_signed_out_and_roleless_users_cannot_read_it(console_login: Login) -> None:
    _two_tiers()
    assert Client().get("/topology/").status_code == 302
    assert console_login("nobody", None).get("/topology/").status_code == 403
    assert console_login("nobody2", None).get("/topology/spine/").status_code == 403


def test_the_tree_nests_children_inside_their_parent(console_login: Login) -> None:
    _two_tiers()
    tree = topology(None)
    assert [r.name for r in tree.roots] == ["spine"]
    assert [c.name for c in tree.roots[0].children] == ["rack-a", "rack-b"]
    assert tree.by_name["spine"].node_count == 4
    assert tree.by_name["rack-a"].depth == 1


def test_free_resources_are_allocatable_minus_the_bound_pods(console_login: Login) -> None:
    nodes = _two_tiers()
    _job("busy", [nodes["s-a0"], nodes["s-a0"]], cpu=3)  # 6 of s-a0's 8 cores
    _job("done", [nodes["s-a1"]], cpu=8, phase="Succeeded")  # a finished pod holds nothing
    text = console_login("vic", "viewer").get("/topology/").content.decode()
    assert "10 / 16 cores" in text  # rack-a: 16 cores, 6 requested
    assert "26 / 32 cores" in text  # spine
    assert "30Gi / 32Gi" in text  # rack-a's memory: 2 GiB requested
    assert "16 / 16 cores" in text  # rack-b, untouched


def test_a_job_is_listed_in_the_lowest_hypernode_holding_all_its_pods(
    console_login: Login,
) -> None:
    nodes = _two_tiers()
    _job("inside-a", [nodes["s-a0"], nodes["s-a1"]])
    _job("across", [nodes["s-a0"], nodes["s-b1"]])
    _job("hidden", [nodes["s-b0"]], namespace="team-x")
    tree = topology(frozenset({"default"}))
    assert [j.name for j in tree.by_name["rack-a"].jobs] == ["inside-a"]
    assert [j.name for j in tree.by_name["spine"].jobs] == ["across"]
    assert tree.by_name["rack-b"].jobs == []
    assert tree.by_name["rack-b"].hidden_jobs == 1  # in a namespace the reader cannot read

    viewer = console_login("vic", "viewer", ("default",))
    text = viewer.get("/topology/").content.decode()
    assert 'href="/jobs/default/inside-a/"' in text
    assert 'href="/jobs/team-x/hidden/"' not in text
    assert "+1 in namespaces you cannot read" in text
    detail = viewer.get("/topology/spine/").content.decode()
    assert 'href="/jobs/default/across/"' in detail
    assert "In its children" in detail  # inside-a landed lower down, in rack-a
    operator = console_login("olga", "operator").get("/topology/rack-b/").content.decode()
    assert 'href="/jobs/team-x/hidden/"' in operator


def test_regex_and_label_members_are_shown_and_resolved(console_login: Login) -> None:
    make_node("gpu-r1-0", labels={"pool": "gpu"})
    make_node("gpu-r1-1", labels={"pool": "gpu"})
    make_node("cpu-r1-0", labels={"pool": "cpu"})
    _hyper_node("mixed", 1, [
        {"type": "Node", "selector": {"regexMatch": {"pattern": "^cpu-"}}},
        {"type": "Node", "selector": {"labelMatch": {
            "matchLabels": {"pool": "gpu"},
            "matchExpressions": [{"key": "spot", "operator": "DoesNotExist"}]}}},
    ])  # fmt: skip
    client = console_login("vic", "viewer")
    text = client.get("/topology/").content.decode()
    assert "regex ^cpu-" in text
    assert "labels pool=gpu,!spot" in text
    assert "<strong>3</strong>" in text  # three nodes in all
    detail = client.get("/topology/mixed/").content.decode()
    for name in ("gpu-r1-0", "gpu-r1-1", "cpu-r1-0"):
        assert f'href="/nodes/{name}/"' in detail
    members = _fragment(client, "/topology/mixed/", "hypernode-body")
    assert "^cpu-" in members
    assert "pool=gpu,!spot" in members


def test_a_hypernodes_page_lists_members_nodes_and_its_place(console_login: Login) -> None:
    nodes = _two_tiers()
    _job("here", [nodes["s-b0"]])
    text = console_login("vic", "viewer", ("default",)).get("/topology/rack-b/").content.decode()
    assert 'href="/topology/spine/"' in text  # its parent, in the breadcrumb
    assert 'href="/nodes/s-b0/"' in text
    assert 'href="/nodes/s-b1/"' in text
    assert 'href="/nodes/s-a0/"' not in text
    assert 'href="/jobs/default/here/"' in text
    spine = console_login("val", "viewer").get("/topology/spine/").content.decode()
    assert 'href="/topology/rack-a/"' in spine  # a child, linked from the members and nodes
    assert console_login("vin", "viewer").get("/topology/no-such/").status_code == 404


def test_a_discovered_hypernode_is_marked(console_login: Login) -> None:
    make_node("d-0")
    _hyper_node("hypernode-a2-tier1-abcde", 1, _exact("d-0"),
                labels={"volcano.sh/network-topology-source": "label"})  # fmt: skip
    _hyper_node("by-hand", 1, _exact("d-0"))
    text = console_login("vic", "viewer").get("/topology/").content.decode()
    assert text.count('class="badge badge-discovered"') == 1
    detail = console_login("val", "viewer").get("/topology/by-hand/").content.decode()
    assert "written by hand" in detail


def test_without_hypernodes_the_page_says_what_they_are_and_how_to_make_them(
    console_login: Login,
) -> None:
    make_node("lonely")
    text = console_login("vic", "viewer").get("/topology/").content.decode()
    assert "No HyperNodes yet" in text
    assert "A HyperNode groups nodes" in text
    assert "kind: HyperNode" in text  # an example to apply
    assert "kubectl apply -f" in text
    assert "<code>label</code> source" in text
    assert "volcano-system/volcano-controller-configmap" in text
    assert 'href="/nodes/"' in text  # somewhere to go on


def test_the_tree_refreshes_live_on_nodes_pods_and_hypernodes(console_login: Login) -> None:
    _two_tiers()
    client = console_login("vic", "viewer")
    text = client.get("/topology/").content.decode()
    assert 'data-live="core.node core.pod topology.hypernode scheduler.session"' in text
    fragment = _fragment(client, "/topology/", "hypernode-tree")
    assert fragment.lstrip().startswith('<section id="hypernode-tree"')
    assert "<html" not in fragment


def test_the_tree_costs_the_same_queries_for_few_or_many_jobs(console_login: Login) -> None:
    nodes = _two_tiers()
    client = console_login("olga", "operator")
    _job("j-0", [nodes["s-a0"]])
    headers = {"HX-Request": "true", "HX-Target": "hypernode-tree"}
    with CaptureQueriesContext(connection) as few:
        client.get("/topology/", headers=headers)
    for i in range(1, 12):
        _job(f"j-{i}", [nodes["s-a0"], nodes["s-b0"]] if i % 2 else [nodes["s-b1"]])
    with CaptureQueriesContext(connection) as many:
        client.get("/topology/", headers=headers)
    assert len(many) == len(few)


def test_a_child_named_by_two_parents_hangs_under_the_first_and_a_cycle_is_still_drawn(
    console_login: Login,
) -> None:
    make_node("c-0")
    _hyper_node("leaf", 1, _exact("c-0"))
    _hyper_node("p-a", 2, _exact("leaf", member_type="HyperNode"))
    _hyper_node("p-b", 2, _exact("leaf", member_type="HyperNode"))
    _hyper_node("loop-x", 3, _exact("loop-y", member_type="HyperNode"))
    _hyper_node("loop-y", 3, _exact("loop-x", member_type="HyperNode"))
    tree = topology(None)
    assert [c.name for c in tree.by_name["p-a"].children] == ["leaf"]
    assert tree.by_name["p-b"].children == []
    drawn = [item.name for item in tree.walk()]
    assert sorted(drawn) == ["leaf", "loop-x", "loop-y", "p-a", "p-b"]  # each once
    text = console_login("vic", "viewer").get("/topology/").content.decode()
    assert 'href="/topology/loop-y/"' in text
