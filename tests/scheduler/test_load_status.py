"""Each node's load, stored by the worker after every session, as the Nodes pages show it."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from core.models import Node, NodeLoadStamp, Pod
from scheduler.load_status import LOAD_COLUMNS, loads_fresh, stored_loads
from scheduler.node_selectors import Load, _aggregate_loads, node_loads
from scheduler.worker import run_once
from tests.scheduler.factories import GI, make_gang, make_node

pytestmark = pytest.mark.django_db


def _running(name: str, node: Node, *, cpu: int, phase: str = "Running") -> Pod:
    return Pod.objects.create(
        namespace="default", name=name, node=node, phase=phase,
        requests={"cpu": cpu * 1000, "memory": GI}, cpu_milli=cpu * 1000, memory_milli=GI,
    )  # fmt: skip


def _stored() -> dict[int, tuple[int, ...]]:
    rows = Node.objects.filter(load_pods__gt=0).values_list("pk", *LOAD_COLUMNS)
    return {pk: tuple(rest) for pk, *rest in rows}


def _summed() -> dict[int, tuple[int, ...]]:
    return {pk: (ld.cpu, ld.memory, ld.gpu, ld.pods) for pk, ld in _aggregate_loads(None).items()}


def test_after_a_session_the_stored_loads_equal_the_pods_sum_on_every_node() -> None:
    ready = make_node("ready", cpu=8)
    cordoned = make_node("cordoned", cpu=8, unschedulable=True)
    down = make_node("down", cpu=8, ready=False)
    _running("on-cordoned", cordoned, cpu=2)
    _running("on-down", down, cpu=3)  # not in the snapshot's nodes, still holding it
    _running("finished", ready, cpu=4, phase="Succeeded")  # holds nothing
    make_gang("g", replicas=3, cpu=1)

    run_once(reconcile=False)

    assert Pod.objects.filter(node=ready).exclude(phase="Succeeded").count() == 3
    assert _stored() == _summed()
    assert _stored()[down.pk][0] == 3000
    assert _stored()[ready.pk] == (3000, 3 * GI, 0, 3)
    assert loads_fresh()


def test_the_list_shows_the_stored_loads_at_most_one_session_behind(
    console_login: Any,
) -> None:
    node = make_node("n1", cpu=8)
    pod = _running("p1", node, cpu=2)
    run_once(reconcile=False)
    client: Client = console_login("vic", "viewer")
    assert "2 / 8 · 6 idle" in client.get("/nodes/").content.decode()

    pod.phase = "Succeeded"  # killed: the stored load still counts it until the next session
    pod.save()
    assert node_loads()[node.pk] == Load(2000, GI, 0, 1)
    assert "2 / 8 · 6 idle" in client.get("/nodes/").content.decode()
    # The node's own page sums its own pods: it agrees at once.
    page = client.get("/nodes/n1/").context["p"]
    assert (page.live_pods, page.usages[0].name, page.usages[0].allocated) == (0, "cpu", 0)

    run_once(reconcile=False)
    assert node.pk not in node_loads()
    assert "0 / 8 · 8 idle" in client.get("/nodes/").content.decode()


def test_a_bind_shows_on_the_list_after_its_session() -> None:
    node = make_node("n1", cpu=8)
    make_gang("g", replicas=2, cpu=2)
    run_once(reconcile=False)
    assert node_loads()[node.pk] == Load(4000, 2 * GI, 0, 2)
    assert _stored() == _summed()


def test_without_a_fresh_store_the_pages_sum_the_pods() -> None:
    node = make_node("n1", cpu=8)
    run_once(reconcile=False)
    _running("p1", node, cpu=1)
    assert node.pk not in node_loads()  # fresh: the last session's figures (nothing held)
    NodeLoadStamp.objects.update(stored_at=timezone.now() - timedelta(minutes=5))

    assert stored_loads() is None
    assert node_loads()[node.pk] == Load(1000, GI, 0, 1)  # no worker: summed, exact


def test_a_node_resaved_with_old_figures_is_corrected_at_the_next_session() -> None:
    node = make_node("n1", cpu=8)
    _running("p1", node, cpu=2)
    run_once(reconcile=False)
    Node.objects.filter(pk=node.pk).update(load_cpu=0, load_pods=0)

    run_once(reconcile=False)

    assert _stored() == _summed()
