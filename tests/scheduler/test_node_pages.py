"""The Nodes pages as each role sees them: the table, its filters and pages, the heat map,
a node's page with its pods and history, and cordon/uncordon/down/up by role, audited."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import AuditEntry
from core.models import Event, Node, Pod
from jobs.models import Job
from scheduler.charts import MISSING_GROUP, HeatNode, node_heatmap
from tests.scheduler.factories import GI, make_node

pytestmark = pytest.mark.django_db

Login = Callable[..., Client]


def _pod(name: str, node: Node | None, *, cpu: int = 1, memory_gi: int = 2,
         phase: str = "Running", namespace: str = "default", job: Job | None = None) -> Pod:  # fmt: skip
    requests = {"cpu": cpu * 1000, "memory": memory_gi * GI}
    return Pod.objects.create(
        namespace=namespace, name=name, node=node, phase=phase, job=job, requests=requests,
        cpu_milli=requests["cpu"], memory_milli=requests["memory"],
    )  # fmt: skip


def _fresh(node: Node) -> Node:
    node.refresh_from_db()
    return node


def _zones() -> tuple[Node, Node, Node]:
    a = make_node("node-a", cpu=8, labels={"zone": "east", "pool": "cpu"})
    b = make_node("node-b", cpu=8, labels={"zone": "west"}, unschedulable=True)
    c = make_node("node-c", cpu=4, labels={"zone": "east"}, ready=False)
    return a, b, c


# ---- the list -------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["viewer", "submitter", "operator", "admin"])
def test_every_role_reads_the_nodes_table(login_as: Callable[[str], Client], role: str) -> None:
    _zones()
    response = login_as(role).get("/nodes/")
    assert response.status_code == 200
    page = response.content.decode()
    for name in ("node-a", "node-b", "node-c"):
        assert f'href="/nodes/{name}/"' in page
    assert "NotReady" in page
    assert "Cordoned" in page
    assert 'data-figure="nodes-heatmap-figure"' in page


def test_a_signed_out_visitor_and_a_user_without_a_role_cannot_read_nodes(
    console_login: Login,
) -> None:
    assert Client().get("/nodes/").status_code == 302
    assert console_login("nobody", None).get("/nodes/").status_code == 403


def test_the_table_shows_allocated_and_idle_per_resource(console_login: Login) -> None:
    a, _b, _c = _zones()
    _pod("p1", a, cpu=3, memory_gi=4)
    _pod("p2", a, cpu=1, memory_gi=4)
    _pod("done", a, cpu=4, phase="Succeeded")  # finished pods hold nothing
    page = console_login("vic", "viewer").get("/nodes/?q=node-a").content.decode()
    assert "4 / 8 · 4 idle" in page  # cpu
    assert "8Gi / 16Gi · 8Gi idle" in page  # memory
    assert "2 / 110 · 108 idle" in page  # pods


def test_filters_by_label_selector_ready_and_cordoned(console_login: Login) -> None:
    _zones()
    client = console_login("vic", "viewer")

    def names(query: str) -> set[str]:
        page = client.get(f"/nodes/?{query}", headers={"HX-Request": "true",
                                                       "HX-Target": "nodes-table"})  # fmt: skip
        assert page.status_code == 200
        text = page.content.decode()
        return {n for n in ("node-a", "node-b", "node-c") if f"/nodes/{n}/" in text}

    assert names("selector=zone%3Deast") == {"node-a", "node-c"}
    assert names("selector=zone%21%3Deast") == {"node-b"}
    assert names("selector=pool") == {"node-a"}
    assert names("ready=no") == {"node-c"}
    assert names("cordoned=yes") == {"node-b"}
    assert names("ready=yes&cordoned=no") == {"node-a"}
    assert names("q=-b") == {"node-b"}


def test_a_malformed_selector_is_a_400_naming_the_field(console_login: Login) -> None:
    _zones()
    response = console_login("vic", "viewer").get("/nodes/?selector=zone%20in%20east")
    assert response.status_code == 400
    assert "Label selector:" in response.content.decode()
    assert 'aria-invalid="true"' in response.content.decode()


def test_sorting_by_cpu_puts_the_fullest_node_first(console_login: Login) -> None:
    a, b, _c = _zones()
    _pod("p1", b, cpu=6)  # 75 % of node-b
    _pod("p2", a, cpu=2)  # 25 % of node-a
    page = console_login("vic", "viewer").get("/nodes/?sort=-cpu").content.decode()
    assert (
        page.index("/nodes/node-b/") < page.index("/nodes/node-a/") < page.index("/nodes/node-c/")
    )
    page = console_login("val", "viewer").get("/nodes/?sort=cpu").content.decode()
    assert (
        page.index("/nodes/node-c/") < page.index("/nodes/node-a/") < page.index("/nodes/node-b/")
    )


def test_the_table_is_paged(console_login: Login) -> None:
    Node.objects.bulk_create(Node(name=f"n-{i:03d}", allocatable={"cpu": 1000}) for i in range(60))
    client = console_login("vic", "viewer")
    first = client.get("/nodes/?per_page=25").content.decode()
    assert "/nodes/n-000/" in first
    assert "/nodes/n-024/" in first
    assert "/nodes/n-025/" not in first
    assert "1\u201325 of 60" in first
    third = client.get("/nodes/?per_page=25&page=3").content.decode()
    assert "/nodes/n-059/" in third
    assert "/nodes/n-049/" not in third


def test_the_table_fragment_alone_answers_a_live_refresh(console_login: Login) -> None:
    _zones()
    response = console_login("vic", "viewer").get(
        "/nodes/", headers={"HX-Request": "true", "HX-Target": "nodes-table"}
    )
    text = response.content.decode()
    assert text.lstrip().startswith('<section id="nodes-table"')
    assert "nodes-heatmap" not in text
    assert 'data-live="core.node core.pod scheduler.session"' in text


def test_the_heat_map_groups_by_the_chosen_label(console_login: Login) -> None:
    a, _b, _c = _zones()
    _pod("p1", a, cpu=4)
    response = console_login("vic", "viewer").get(
        "/nodes/?group=zone", headers={"HX-Request": "true", "HX-Target": "nodes-heatmap"}
    )
    assert response.status_code == 200
    text = response.content.decode()
    start = text.index('<script id="nodes-heatmap-figure" type="application/json">')
    figure = json.loads(text[text.index(">", start) + 1 : text.index("</script>", start)])
    trace = figure["data"][0]
    assert trace["type"] == "heatmap"
    assert figure["layout"]["xaxis"]["ticktext"] == ["east (2)", "west (1)"]
    assert "grouped by zone" in response.content.decode()


def test_an_unknown_group_label_falls_back_to_names(console_login: Login) -> None:
    _zones()
    response = console_login("vic", "viewer").get("/nodes/?group=nope")
    assert response.context["group_by"] == ""


# ---- the heat map figure --------------------------------------------------------------------


def test_heatmap_columns_are_grouped_then_named_and_coloured_by_share() -> None:
    nodes = [
        HeatNode("n3", "b", {"cpu": (2000, 4000), "memory": (GI, 4 * GI)}),
        HeatNode("n1", "b", {"cpu": (4000, 4000), "memory": (0, 4 * GI)}),
        HeatNode("n2", "a", {"cpu": (0, 8000), "memory": (0, 0)}),
        HeatNode("n0", "", {"cpu": (1000, 4000), "memory": (0, GI)}),
    ]
    fig = node_heatmap(nodes, resources=["cpu", "memory"], group_by="zone")
    trace = fig.data[0]
    assert list(trace.x) == ["n2", "n1", "n3", "n0"]  # a, then b by name, then no label
    assert list(trace.y) == ["cpu (cores)", "memory (GiB)"]
    assert list(trace.z[0]) == [0.0, 100.0, 50.0, 25.0]
    assert trace.z[1][0] != trace.z[1][0]  # NaN: node n2 has no memory, a gap
    assert list(trace.customdata[0][2]) == [2.0, 4.0]  # cores held, cores allocatable
    assert list(trace.customdata[1][2]) == [1.0, 4.0]  # GiB
    assert "%{customdata[0]:.4~g} of %{customdata[1]:.4~g}" in trace.hovertemplate
    assert list(fig.layout.xaxis.ticktext) == ["a (1)", "b (2)", f"{MISSING_GROUP} (1)"]
    assert fig.layout.xaxis.title.text == "zone"
    assert len(fig.layout.shapes) == 2  # a line between each pair of groups
    assert (trace.zmin, trace.zmax) == (0, 100)


def test_heatmap_of_many_nodes_by_name_hides_their_names() -> None:
    nodes = [HeatNode(f"n{i:04d}", "", {"cpu": (0, 1000)}) for i in range(500)]
    fig = node_heatmap(nodes, resources=["cpu"])
    assert fig.layout.xaxis.showticklabels is False
    assert "500 nodes" in fig.layout.xaxis.title.text


# ---- a node's page --------------------------------------------------------------------------


def test_a_node_page_shows_its_numbers_labels_taints_pods_and_events(console_login: Login) -> None:
    node = make_node("gpu-1", cpu=8, gpu=2, labels={"zone": "east"},
                     taints=[{"key": "gpu", "value": "true", "effect": "NoSchedule"}])  # fmt: skip
    job = Job.objects.create(namespace="default", name="train")
    _pod("train-worker-0", node, cpu=2, job=job)
    Event.objects.create(namespace="default", involved_kind="Node", involved_name="gpu-1",
                         reason="NodeReady", message="node is ready",
                         first_timestamp=timezone.now(), last_timestamp=timezone.now())  # fmt: skip
    page = console_login("vic", "viewer", ("default",)).get("/nodes/gpu-1/").content.decode()
    assert "zone=east" in page
    assert "gpu=true:NoSchedule" in page
    assert "nvidia.com/gpu" in page
    assert 'href="/jobs/default/train/"' in page
    assert "train-worker-0" in page
    assert "NodeReady" in page
    assert "Ready=True" in page
    assert 'name="action"' not in page  # a viewer gets no buttons


def test_a_node_page_lists_only_pods_of_readable_namespaces(console_login: Login) -> None:
    node = make_node("shared")
    _pod("mine", node, namespace="team-a")
    _pod("theirs", node, namespace="team-b")
    page = console_login("ada", "submitter", ("team-a",)).get("/nodes/shared/").content.decode()
    assert "mine" in page
    assert "theirs" not in page
    assert "1 in namespaces you cannot read" in page


def test_an_unknown_node_is_404(console_login: Login) -> None:
    assert console_login("vic", "viewer").get("/nodes/nope/").status_code == 404


def test_an_operator_sees_the_action_buttons(console_login: Login) -> None:
    make_node("n1")
    page = console_login("olga", "operator").get("/nodes/n1/").content.decode()
    for action in ("cordon", "down"):  # a Ready, schedulable node: the other two change nothing
        assert f'value="{action}"' in page
    for action in ("uncordon", "up"):
        assert f'value="{action}"' not in page
    assert 'data-confirm="Cordon n1? No new pod will be bound to it; running pods stay."' in page


# ---- actions --------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["viewer", "submitter"])
@pytest.mark.parametrize("action", ["cordon", "uncordon", "down", "up"])
def test_a_viewer_or_submitter_is_refused_and_nothing_is_written(
    login_as: Callable[[str], Client], role: str, action: str
) -> None:
    node = make_node("n1", unschedulable=action == "uncordon", ready=action != "up")
    pod = _pod("p", node)
    before = (node.unschedulable, node.ready, node.resource_version)
    response = login_as(role).post("/nodes/n1/action/", {"action": action})
    assert response.status_code == 403
    node.refresh_from_db()
    pod.refresh_from_db()
    assert (node.unschedulable, node.ready, node.resource_version) == before
    assert pod.phase == "Running"
    assert not AuditEntry.objects.exists()
    assert not Event.objects.filter(involved_kind="Node").exists()


@pytest.mark.parametrize("role", ["operator", "admin"])
def test_an_operator_cordons_and_uncordons_audited(
    login_as: Callable[[str], Client], role: str
) -> None:
    node = make_node("n1")
    client = login_as(role)
    response = client.post("/nodes/n1/action/", {"action": "cordon"})
    assert response.status_code == 302
    assert response["Location"] == "/nodes/n1/"
    assert _fresh(node).unschedulable
    client.post("/nodes/n1/action/", {"action": "uncordon"})
    assert not _fresh(node).unschedulable
    entries = list(AuditEntry.objects.filter(kind="Node", name="n1").order_by("id"))
    assert [(e.action, e.before, e.after) for e in entries] == [
        ("update", {"unschedulable": False}, {"unschedulable": True}),
        ("update", {"unschedulable": True}, {"unschedulable": False}),
    ]
    assert {e.actor_name for e in entries} == {client.user.username}  # type: ignore[attr-defined]
    page = client.get("/nodes/n1/").content.decode()
    assert "unschedulable: True → False" in page


def test_an_operator_takes_a_node_down_and_up_audited(console_login: Login) -> None:
    node = make_node("n1")
    pod = _pod("p", node)
    client = console_login("olga", "operator")
    client.post("/nodes/n1/action/", {"action": "down"})
    pod.refresh_from_db()
    assert not _fresh(node).ready
    assert pod.phase == "Failed"
    client.post("/nodes/n1/action/", {"action": "up"})
    assert _fresh(node).ready
    down, up = AuditEntry.objects.filter(kind="Node", name="n1").order_by("id")
    assert (down.action, down.actor_name) == ("down", "olga")
    assert down.before == {"ready": True, "readyReason": ""}
    assert down.after == {"ready": False, "readyReason": "TakenDownByOperator", "podsFailed": 1}
    assert (up.action, (up.after or {}).get("ready")) == ("up", True)
    page = client.get("/nodes/n1/").content.decode()
    assert "podsFailed" in page
    assert "olga" in page


def test_taking_a_node_down_is_announced_to_live_pages(
    console_login: Login, django_capture_on_commit_callbacks: Any, monkeypatch: Any
) -> None:
    from console import live

    sent: list[frozenset[str]] = []
    monkeypatch.setattr(live, "tails_stream", lambda: False)
    monkeypatch.setattr(live, "publish", lambda topics: sent.append(frozenset(topics)))
    node = make_node("n1")
    _pod("p", node)
    client = console_login("olga", "operator")
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/nodes/n1/action/", {"action": "down"})
    heard = set().union(*sent)
    assert "core.node@" in heard
    assert any(t.startswith("core.pod@") for t in heard)


def test_an_unknown_action_changes_nothing(console_login: Login) -> None:
    node = make_node("n1")
    response = console_login("olga", "operator").post("/nodes/n1/action/", {"action": "drain"})
    assert response.status_code == 302
    node.refresh_from_db()
    assert node.ready
    assert not node.unschedulable
    assert not AuditEntry.objects.exists()


def test_actions_need_post(console_login: Login) -> None:
    make_node("n1")
    assert console_login("olga", "operator").get("/nodes/n1/action/").status_code == 405


@pytest.fixture
def login_as(console_login: Login) -> Callable[[str], Client]:
    """Return ``login_as(role)``: a client of a fresh user holding ``role`` (grant: default)."""
    count = iter(range(1000))

    def login(role: str) -> Client:
        if role == "admin":
            client = console_login(f"admin{next(count)}", None)
            user = client.user  # type: ignore[attr-defined]
            user.is_superuser = True
            user.save()
            return client
        return console_login(f"{role}{next(count)}", role, ("default",))

    return login


@pytest.mark.django_db(transaction=True)
def test_the_kept_loads_follow_every_change_of_the_pods() -> None:
    from scheduler.node_selectors import node_loads

    node = make_node("kept")
    _pod("p1", node, cpu=1)
    assert node_loads()[node.pk].cpu == 1000
    assert node_loads()[node.pk].cpu == 1000  # asked again, unchanged: the kept answer
    _pod("p2", node, cpu=2)
    assert node_loads()[node.pk].cpu == 3000  # the stream moved: counted again
