"""The Nodes pages' GPUs and NUMA cells: a node's cards with the pods sharing them, its NUMA
cells with the CPUs its pods hold, the list's GPU column and NUMA badge, in bounded queries."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from core.models import Node, Pod
from jobs.models import Job
from kubelet.exporter import reconcile
from kubelet.sim_devices import SIM_GPUS, SIM_NUMA, card_uuid
from tests.scheduler.factories import GI, make_node

pytestmark = pytest.mark.django_db

Login = Callable[..., Client]
MIB = 1000  # one MiB of a device resource, in milli-units


def _knobbed(name: str, *, gpus: str = "", numa: str = "", cpu: int = 8) -> Node:
    notes = {k: v for k, v in ((SIM_GPUS, gpus), (SIM_NUMA, numa)) if v}
    node = make_node(name, cpu=cpu, annotations=notes)
    reconcile()
    node.refresh_from_db()
    return node


def _vgpu_pod(name: str, node: Node, card: int, memory: int, cores: int, *,
              job: Job | None = None, namespace: str = "default") -> Pod:  # fmt: skip
    uuid = card_uuid(node.name, card)
    return Pod.objects.create(
        namespace=namespace, name=name, node=node, phase="Running", job=job,
        annotations={"volcano.sh/vgpu-ids-new": f"{uuid},NVIDIA,{memory},{cores}:"},
        requests={"cpu": 1000, "memory": GI, "volcano.sh/vgpu-memory": memory * MIB},
        cpu_milli=1000, memory_milli=GI,
    )  # fmt: skip


def _cells(page: str, section: str) -> str:
    match = re.search(rf'<section class="card" id="{section}">(.*?)</section>', page, re.S)
    assert match, f"no #{section} on the page"
    return match.group(1)


def test_a_vgpu_node_shows_each_card_and_the_pods_sharing_it(console_login: Login) -> None:
    node = _knobbed("vg-1", gpus="count=2,memory=16384,slots=4")
    job = Job.objects.create(namespace="default", name="llm")
    _vgpu_pod("llm-0", node, 0, 4096, 30, job=job)
    _vgpu_pod("llm-1", node, 0, 6144, 20, job=job)
    page = console_login("vic", "viewer", ("default",)).get("/nodes/vg-1/").content.decode()
    gpus = _cells(page, "node-gpus")
    rows = re.findall(r"<tr>(.*?)</tr>", gpus.split("<tbody>")[1], re.S)
    assert len(rows) == 2
    first, second = rows
    uuid = card_uuid("vg-1", 0)
    assert f'title="{uuid}"' in first
    assert uuid[:12] + "…" in first
    assert "NVIDIA-Tesla-T4" in first
    assert "10 / 16 GiB" in first  # 4096 + 6144 MiB of 16384
    assert "50%" in first  # cores
    assert "2/4" in first  # slots
    assert first.count('href="/jobs/default/llm/"') == 2
    assert "llm-0" in first
    assert "llm-1" in first
    assert "0 / 16 GiB" in second
    assert "0/4" in second
    assert "idle" in second
    assert "1/2 cards · 10/32 GiB" in gpus


def test_pods_of_unreadable_namespaces_are_counted_not_named(console_login: Login) -> None:
    node = _knobbed("vg-2", gpus="count=1")
    _vgpu_pod("mine", node, 0, 1024, 10)
    _vgpu_pod("secret-pod", node, 0, 1024, 10, namespace="other")
    page = console_login("vic", "viewer", ("default",)).get("/nodes/vg-2/").content.decode()
    gpus = _cells(page, "node-gpus")
    assert "mine" in gpus
    assert "secret-pod" not in gpus
    assert "+1 in namespaces you cannot read" in gpus


def test_gpushare_cards_are_shown_by_index(console_login: Login) -> None:
    node = _knobbed("gs-1", gpus="count=2,memory=8192,mode=gpushare")
    Pod.objects.create(namespace="default", name="share-0", node=node, phase="Running",
                       annotations={"volcano.sh/gpu-index": "1"},
                       requests={"volcano.sh/gpu-memory": 2048 * MIB})  # fmt: skip
    page = console_login("vic", "viewer", ("default",)).get("/nodes/gs-1/").content.decode()
    gpus = _cells(page, "node-gpus")
    rows = re.findall(r"<tr>(.*?)</tr>", gpus.split("<tbody>")[1], re.S)
    assert "0 / 8 GiB" in rows[0]
    assert "share-0" not in rows[0]
    assert "2 / 8 GiB" in rows[1]
    assert "share-0" in rows[1]
    assert "UUID" not in gpus


def test_exclusive_gpus_are_a_count(console_login: Login) -> None:
    node = make_node("ex-1", gpu=4)
    Pod.objects.create(namespace="default", name="whole", node=node, phase="Running",
                       requests={"nvidia.com/gpu": 3000}, gpu_milli=3000)  # fmt: skip
    page = console_login("vic", "viewer", ("default",)).get("/nodes/ex-1/").content.decode()
    gpus = _cells(page, "node-gpus")
    assert "3 of 4 whole GPUs" in gpus


def test_numa_cells_show_free_cpus_the_pods_holding_cpus_and_the_policy(
    console_login: Login,
) -> None:
    node = _knobbed("nu-1", numa="cells=2,policy=single-numa-node,reserved=1", cpu=8)
    spec = {
        "containers": [
            {
                "name": "main",
                "resources": {
                    "limits": {"cpu": "2", "memory": "1Gi"},
                    "requests": {"cpu": "2", "memory": "1Gi"},
                },
            }
        ]
    }
    Pod.objects.create(namespace="default", name="pinned", node=node, phase="Running", spec=spec,
                       requests={"cpu": 2000, "memory": GI}, cpu_milli=2000, memory_milli=GI)  # fmt: skip
    reconcile()
    page = console_login("vic", "viewer", ("default",)).get("/nodes/nu-1/").content.decode()
    numa = _cells(page, "node-numa")
    assert "topology policy single-numa-node" in numa
    assert "CPU manager static" in numa
    rows = re.findall(r"<tr>(.*?)</tr>", numa.split("<tbody>")[1], re.S)
    assert len(rows) == 2
    # Cell 0 holds CPUs 0-3: 0 reserved, 1-2 the pod's (the lowest free of the lowest cell).
    assert "0-3" in rows[0]
    assert "reserved for the system: 0" in rows[0]
    assert "pinned" in rows[0]
    assert "<code>1-2</code>" in rows[0]
    assert "1 free: 3" in rows[0]
    assert "4 free: 4-7" in rows[1]
    assert "no exclusive CPUs held" in rows[1]


def test_a_node_without_devices_shows_no_empty_boxes(console_login: Login) -> None:
    make_node("plain-1")
    page = console_login("vic", "viewer", ("default",)).get("/nodes/plain-1/").content.decode()
    assert 'id="node-gpus"' not in page
    assert 'id="node-numa"' not in page


def test_the_list_has_a_gpu_column_only_when_some_node_has_gpus(console_login: Login) -> None:
    make_node("plain-a")
    client = console_login("vic", "viewer", ("default",))
    page = client.get("/nodes/").content.decode()
    assert ">GPU <span" not in page
    assert "cards ·" not in page
    node = _knobbed("vg-l", gpus="count=4,memory=16384")
    _vgpu_pod("a", node, 0, 8192, 10)
    _vgpu_pod("b", node, 1, 8192, 10)
    page = client.get("/nodes/").content.decode()
    assert ">GPU <span" in page
    assert "2/4 cards · 16/64 GiB" in page


def test_the_list_badges_a_node_with_numa_and_filters_keep_working(console_login: Login) -> None:
    _knobbed("nu-l", numa="policy=restricted", gpus="count=1")
    make_node("plain-b")
    client = console_login("vic", "viewer", ("default",))
    page = client.get("/nodes/").content.decode()
    assert "NUMA restricted" in page
    page = client.get("/nodes/?q=plain").content.decode()
    assert "plain-b" in page
    assert "nu-l" not in page
    assert ">GPU <span" in page
    page = client.get("/nodes/?sort=-gpu").content.decode()
    assert page.index("nu-l") < page.index("plain-b")


@pytest.mark.parametrize("sort", ["name", "-gpu"])
def test_the_list_reads_devices_in_bounded_queries(
    console_login: Login, django_assert_max_num_queries: Any, sort: str
) -> None:
    client = console_login("vic", "viewer", ("default",))
    for i in range(3):
        node = _knobbed(f"vq-{i}", gpus="count=2", numa="cells=2")
        _vgpu_pod(f"q-{i}", node, 0, 1024, 10)
    client.get(f"/nodes/?sort={sort}")  # warm the session and caches
    with django_assert_max_num_queries(30) as few:
        client.get(f"/nodes/?sort={sort}")
    for i in range(3, 12):
        node = _knobbed(f"vq-{i}", gpus="count=2", numa="cells=2")
        _vgpu_pod(f"q-{i}", node, 0, 1024, 10)
    with django_assert_max_num_queries(len(few.captured_queries)):
        response = client.get(f"/nodes/?sort={sort}")
    assert "vq-11" in response.content.decode()
