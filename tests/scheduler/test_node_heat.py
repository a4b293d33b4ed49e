"""The Nodes heat map of a large cluster: a cell per group, a group opened, only what is drawn."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from core.models import Node, Pod
from scheduler.node_heat import MAX_GROUPS, NODES_DRAWN
from tests.scheduler.factories import GI

pytestmark = pytest.mark.django_db

Login = Callable[..., Client]
ZONE = "topology.kubernetes.io/zone"
POOL = "node.kubernetes.io/instance-type"
HEAT = {"HX-Request": "true", "HX-Target": "nodes-heatmap"}


def _cluster(count: int, *, zones: int = 4) -> None:
    """Store ``count`` nodes of 8 cores over ``zones`` zones; zone-0's first node holds 6 cores.

    Pools: every node of an even index is ``m.8x``, of an odd one ``m.16x``; every 50th node
    carries no pool label (the ``(none)`` group).
    """
    rows = []
    for i in range(count):
        labels = {ZONE: f"zone-{i % zones}", "kubernetes.io/hostname": f"n-{i:05d}"}
        if i % 50:
            labels[POOL] = "m.8x" if i % 2 == 0 else "m.16x"
        alloc = {"cpu": 8000, "memory": 32 * GI, "pods": 110_000}
        rows.append(Node(name=f"n-{i:05d}", allocatable=alloc, capacity=alloc, labels=labels))
    Node.objects.bulk_create(rows, batch_size=500)
    busy = Node.objects.get(name="n-00000")
    Pod.objects.create(namespace="default", name="p", node=busy, phase="Running",
                       requests={"cpu": 6000, "memory": 4 * GI}, cpu_milli=6000,
                       memory_milli=4 * GI)  # fmt: skip


def _figure(text: str) -> tuple[dict[str, Any], int]:
    """Return the heat map's figure in ``text`` and the size of its JSON in bytes."""
    marker = '<script id="nodes-heatmap-figure" type="application/json">'
    start = text.index(marker) + len(marker)
    body = text[start : text.index("</script>", start)]
    return json.loads(body), len(body.encode())


def _cells(figure: dict[str, Any]) -> dict[str, list[Any]]:
    """Return the drawn cells by name: [name, held, have, ...] and the cell's colour (last)."""
    trace = figure["data"][0]
    cells = {}
    for row, zrow in zip(trace["customdata"], trace["z"], strict=True):
        for cell, z in zip(row, zrow, strict=True):
            if cell is not None:
                cells[cell[0]] = [*cell, z]
    return cells


def test_many_nodes_grouped_by_zone_draw_one_cell_per_zone(console_login: Login) -> None:
    _cluster(NODES_DRAWN + 40)
    response = console_login("vic", "viewer").get(f"/nodes/?group={ZONE}", headers=HEAT)
    assert response.status_code == 200
    text = response.content.decode()
    figure, _size = _figure(text)
    cells = _cells(figure)
    assert sorted(cells) == ["zone-0", "zone-1", "zone-2", "zone-3"]
    # zone-0: 60 nodes of 8 cores, 6 cores held on one: count, held, have, emptiest, fullest
    _name, held, have, nodes, low, high, share = cells["zone-0"]
    assert (nodes, held, have, low, high) == (60, 6, 480, 0, 75)
    assert share == pytest.approx(100 * 6 / 480, abs=0.1)
    assert cells["zone-1"][-1] == 0
    assert "%{customdata[3]} nodes" in figure["data"][0]["hovertemplate"]
    # the keyboard's way in: a link per group, opening it
    assert f'href="?group={ZONE}&amp;in=zone-2"' in text
    assert "240 nodes in 4 groups by topology.kubernetes.io/zone" in text


def test_a_large_cluster_opens_on_its_zones_and_a_pool_can_be_chosen(console_login: Login) -> None:
    _cluster(NODES_DRAWN + 40)
    client = console_login("vic", "viewer")
    figure, _size = _figure(client.get("/nodes/", headers=HEAT).content.decode())
    assert sorted(_cells(figure)) == ["zone-0", "zone-1", "zone-2", "zone-3"]
    figure, _size = _figure(client.get(f"/nodes/?group={POOL}", headers=HEAT).content.decode())
    assert list(_cells(figure)) == ["m.16x", "m.8x", "(none)"]  # no label: last
    # by name, explicitly: the first NODES_DRAWN columns only, said so
    response = client.get("/nodes/?group=", headers=HEAT)
    figure, _size = _figure(response.content.decode())
    assert len(figure["data"][0]["x"]) == NODES_DRAWN
    assert f"first {NODES_DRAWN} of {NODES_DRAWN + 40} by name" in response.content.decode()


def test_the_colour_follows_the_chosen_resource(console_login: Login) -> None:
    _cluster(NODES_DRAWN + 40)
    client = console_login("vic", "viewer")
    url = f"/nodes/?group={ZONE}&resource=memory"
    cells = _cells(_figure(client.get(url, headers=HEAT).content.decode())[0])
    _name, held, have, *_rest, share = cells["zone-0"]
    assert (held, have) == (4, 60 * 32)  # GiB
    assert share == pytest.approx(100 * 4 / (60 * 32), abs=0.1)
    # no node advertises GPUs: every cell is a gap, not a 0 %
    url = f"/nodes/?group={ZONE}&resource=nvidia.com/gpu"
    cells = _cells(_figure(client.get(url, headers=HEAT).content.decode())[0])
    assert all(cell[-1] is None for cell in cells.values())
    # an unknown resource is cpu's picture
    assert client.get(f"/nodes/?group={ZONE}&resource=bogus").context["resource"] == "cpu"


def test_opening_a_group_draws_its_nodes_and_lists_them(console_login: Login) -> None:
    _cluster(NODES_DRAWN + 40)
    client = console_login("vic", "viewer")
    response = client.get(f"/nodes/?group={ZONE}&in=zone-0&per_page=100")
    assert response.status_code == 200
    text = response.content.decode()
    cells = _cells(_figure(text)[0])
    assert len(cells) == 60
    assert all(int(name[2:]) % 4 == 0 for name in cells)
    assert cells["n-00000"][1:] == [6, 8, 75]
    # the table is the same group's nodes; a link goes back to every group
    assert 'href="/nodes/n-00004/"' in text
    assert 'href="/nodes/n-00001/"' not in text
    assert f'href="?group={ZONE}&amp;per_page=100">All groups by {ZONE}</a>' in text
    # a click on a node's cell opens its page
    assert 'data-click-url="/nodes/__cell__/"' in text
    # the nodes without the label form their own group, opened by its name
    response = client.get(f"/nodes/?group={POOL}&in=(none)", headers=HEAT)
    assert sorted(_cells(_figure(response.content.decode())[0])) == [
        f"n-{i:05d}" for i in range(0, NODES_DRAWN + 40, 50)
    ]


def test_an_opened_group_that_does_not_exist_is_empty(console_login: Login) -> None:
    _cluster(10)
    response = console_login("vic", "viewer").get(f"/nodes/?group={ZONE}&in=zone-9")
    assert response.status_code == 200
    assert "No node matches these filters." in response.content.decode()


def test_a_few_nodes_are_still_drawn_one_column_each(console_login: Login) -> None:
    _cluster(12)
    response = console_login("vic", "viewer").get(f"/nodes/?group={ZONE}", headers=HEAT)
    figure, _size = _figure(response.content.decode())
    assert len(figure["data"][0]["x"]) == 12
    assert figure["layout"]["xaxis"]["ticktext"][0] == "zone-0 (3)"


def test_the_heat_map_stays_small_with_2000_nodes(console_login: Login) -> None:
    _cluster(2000, zones=8)
    client = console_login("vic", "viewer")
    for url, cells in ((f"/nodes/?group={ZONE}", 8), (f"/nodes/?group={POOL}", 3),
                       (f"/nodes/?group={ZONE}&in=zone-1", 250)):  # fmt: skip
        response = client.get(url)
        figure, size = _figure(response.content.decode())
        assert len(_cells(figure)) == cells
        assert size < 100_000, url
        assert len(response.content) < 200_000, url  # the table is paged (50 rows)
    # a label with a value per node (a hostname) draws the first MAX_GROUPS groups, said so
    response = client.get("/nodes/?group=kubernetes.io/hostname", headers=HEAT)
    figure, size = _figure(response.content.decode())
    assert len(_cells(figure)) == MAX_GROUPS
    assert size < 100_000
    assert f"first {MAX_GROUPS} drawn: choose a coarser label" in response.content.decode()
