"""The queues page as a tree: root at the top, each queue under its parent, amounts with
their units, and a weight typed on a node previewed in place without saving."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from html.parser import HTMLParser

import pytest
from django.test import Client

from queues.models import Queue
from tests.scheduler.factories import make_gang, make_node, make_queue

pytestmark = pytest.mark.django_db

CORE = 1000
GI = 1024**3 * 1000


class _Tree(HTMLParser):
    """Read the page's tree back: each queue node's parent node (None at the top), and which
    nodes' children start folded."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str | None] = []  # the open <li class="qnode">s, by queue name
        self.depth = 0  # open <li> elements (the nodes' and any other)
        self.node_depths: list[int] = []
        self.parent: dict[str, str | None] = {}
        self.folded: dict[str, bool] = {}
        self.in_name = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "li":
            self.depth += 1
            if "qnode" in classes:
                self.stack.append(None)
                self.node_depths.append(self.depth)
        elif tag == "div" and "qname" in classes:
            self.in_name = True
        elif tag == "a" and self.in_name and self.stack and self.stack[-1] is None:
            name = (a.get("href") or "").strip("/").split("/")[-1]
            self.stack[-1] = name
            above = [n for n in self.stack[:-1] if n]
            self.parent[name] = above[-1] if above else None
        elif tag == "details" and "qkids" in classes and self.stack and self.stack[-1]:
            self.folded[self.stack[-1]] = "open" not in a

    def handle_endtag(self, tag: str) -> None:
        if tag == "div":
            self.in_name = False
        if tag == "li":
            if self.node_depths and self.node_depths[-1] == self.depth:
                self.node_depths.pop()
                self.stack.pop()
            self.depth -= 1


def _tree(body: str) -> _Tree:
    tree = _Tree()
    tree.feed(body)
    return tree


def test_the_tree_nests_children_under_their_parents_with_root_at_the_top(
    console_login: Callable[..., Client],
) -> None:
    make_queue("team", capability={"cpu": 8 * CORE})
    make_queue("team-a", parent="team")
    make_queue("team-b", parent="team", weight=3)
    make_queue("solo", parent="root")
    body = console_login("vera", "viewer").get("/queues/").content.decode()
    tree = _tree(body)
    assert tree.parent == {
        "root": None,
        "default": "root",
        "solo": "root",
        "team": "root",
        "team-a": "team",
        "team-b": "team",
    }
    # Parents' children start unfolded; each fold says how many queues it holds and whose.
    assert tree.folded == {"root": False, "team": False}
    assert 'id="qt-team"' in body
    assert "2 queues under team" in body
    assert "3 queues under root" in body


def test_a_flat_cluster_is_every_queue_under_root(console_login: Callable[..., Client]) -> None:
    make_queue("a")
    make_queue("b")
    body = console_login("vera", "viewer").get("/queues/?sort=-name").content.decode()
    tree = _tree(body)
    assert tree.parent == {"root": None, "a": "root", "b": "root", "default": "root"}
    names = re.findall(r'<div class="qname"><a href="/queues/([a-z0-9-]+)/">', body)
    assert names == ["root", "default", "b", "a"]  # root first; siblings as sorted


def test_each_node_shows_allocated_deserved_guarantee_and_capability_with_units(
    console_login: Callable[..., Client],
) -> None:
    share = {"plugin": "capacity", "taking_part": True, "at": "now", "share": 0.5}
    make_queue(
        "team",
        allocated={"cpu": 3 * CORE, "memory": 6 * GI},
        guarantee={"cpu": 2 * CORE},
        capability={"cpu": 10 * CORE, "memory": 32 * GI},
        share_status={**share, "deserved": {"cpu": 6 * CORE, "memory": 16 * GI}},
    )
    body = console_login("vera", "viewer").get("/queues/").content.decode()
    node = body[body.index(">team</a>") :].split("</li>")[0]
    cpu, memory = node.split('<div class="qquota">')[1:3]
    assert "3 / 6 cores" in cpu
    assert "guar. 2 cores · cap. 10 cores" in cpu
    assert 'style="width: 50.0%"' in cpu  # the share bar: allocated of deserved
    assert "6Gi / 16Gi" in memory
    assert "cap. 32Gi" in memory
    assert "capacity plugin" in body
    assert "0.50" in node


def test_only_editors_get_the_weight_preview_input(console_login: Callable[..., Client]) -> None:
    viewer = console_login("vera", "viewer").get("/queues/").content.decode()
    assert 'class="weight-try"' not in viewer
    operator = console_login("olga", "operator").get("/queues/").content.decode()
    assert 'hx-post="/queues/default/weight-preview/"' in operator
    denied = console_login("val", "viewer").post("/queues/default/weight-preview/", {"weight": 2})
    assert denied.status_code == 403


def test_a_weight_typed_on_the_tree_previews_the_deserved_shares_without_saving(
    console_login: Callable[..., Client],
) -> None:
    """Two 8-core nodes; queues a and b (weight 1 each) both ask for more than the cluster."""
    make_node("n1", cpu=8, memory_gi=64)
    make_node("n2", cpu=8, memory_gi=64)
    for name in ("a", "b"):
        make_queue(name)
        make_gang(f"g{name}", replicas=8, cpu=2, queue=name)
    answer = console_login("olga", "operator").post("/queues/a/weight-preview/", {"weight": 3})
    body = answer.content.decode()
    assert answer.status_code == 200
    assert "data-live-hold" in body  # the tree holds still while the preview is open
    # Each node's deserved mark is replaced in place: a's and b's move, root's stays empty.
    marks = dict(
        re.findall(r'<span class="after" id="qt-d-(\w+)-cpu" hx-swap-oob="true">(.*?)</span>', body)
    )
    assert marks["a"] == "→ <strong>12 cores</strong>"
    assert marks["b"] == "→ <strong>4 cores</strong>"
    assert marks["root"] == ""
    assert Queue.objects.get(name="a").weight == 1  # a preview writes nothing


@pytest.mark.parametrize(
    ("typed", "refusal"),
    [
        ("0", "spec.weight: 0: must be in the range 1-65535"),
        ("two", "spec.weight: 'two' is not a whole number"),
    ],
)
def test_a_refused_weight_is_named_and_nothing_is_previewed(
    console_login: Callable[..., Client], typed: str, refusal: str
) -> None:
    answer = console_login("olga", "operator").post(
        "/queues/default/weight-preview/", {"weight": typed}
    )
    body = html.unescape(answer.content.decode())
    assert refusal in body
    assert "hx-swap-oob" not in body
    assert Queue.objects.get(name="default").weight == 1
