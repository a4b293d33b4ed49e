"""LIST in pages across namespaces: every object once, in key order, whatever the page size.

Pages read one key range at a time (``kube.listing._page_after``): the rest of the last
page's namespace, then the namespaces after it. These tests walk lists whose pages end
inside a namespace, exactly at its end and across several, on namespaced kinds (pods), a
cluster-scoped one (nodes) and one whose names need not be unique (events).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.core import signing
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.models import Event, Node, Pod

PODS = "/api/v1/pods"
NODES = "/api/v1/nodes"
EVENTS = "/api/v1/events"


def _store_pods(counts: dict[str, int], *, start: int = 0) -> list[tuple[str, str]]:
    """Store ``counts[namespace]`` pods in each namespace; return their (namespace, name)."""
    pods = [
        Pod(namespace=namespace, name=f"pod-{index:04d}", spec={"containers": []})
        for namespace, count in counts.items()
        for index in range(start, start + count)
    ]
    Pod.objects.bulk_create(pods)
    return [(pod.namespace, pod.name) for pod in pods]


def _walk(client: Client, path: str, limit: int) -> tuple[list[dict[str, Any]], list[int]]:
    """Read every page of ``path``; return the items and each page's remainingItemCount."""
    items: list[dict[str, Any]] = []
    remaining: list[int] = []
    url = f"{path}?limit={limit}"
    while True:
        response = client.get(url)
        assert response.status_code == 200, response.content
        page = response.json()
        assert len(page["items"]) <= limit
        items += page["items"]
        token = page["metadata"].get("continue")
        if not token:
            return items, remaining
        remaining.append(page["metadata"]["remainingItemCount"])
        url = f"{path}?limit={limit}&continue={token}"


def _keys(items: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(item["metadata"].get("namespace", ""), item["metadata"]["name"]) for item in items]


@pytest.mark.parametrize("limit", [1, 3, 4, 5, 7, 50])
def test_pods_of_every_namespace_are_listed_once_in_order_by_any_page_size(
    operator: Client, limit: int
) -> None:
    # Pages of 4 and 5 end exactly where a namespace does; 3 and 7 end inside one.
    stored = _store_pods({"alpha": 5, "beta": 1, "delta": 0, "gamma": 10, "omega": 4})

    items, remaining = _walk(operator, PODS, limit)

    assert _keys(items) == sorted(stored)
    assert remaining == list(range(len(stored) - limit, 0, -limit))


def test_one_namespaces_pods_are_paged_without_the_other_namespaces(operator: Client) -> None:
    _store_pods({"alpha": 3, "beta": 7, "gamma": 3})

    items, _ = _walk(operator, "/api/v1/namespaces/beta/pods", 2)

    assert _keys(items) == [("beta", f"pod-{index:04d}") for index in range(7)]


def test_pods_deleted_or_created_between_pages_never_repeat_or_hide_the_others(
    operator: Client,
) -> None:
    _store_pods({"alpha": 4, "beta": 4, "gamma": 4})
    first = operator.get(f"{PODS}?limit=5").json()
    Pod.objects.filter(namespace="beta", name="pod-0003").delete()  # not served yet: gone
    Pod.objects.filter(namespace="alpha", name="pod-0000").delete()  # served already
    _store_pods({"alpha": 1, "beta": 1, "zeta": 1}, start=10)  # newer than the list: not shown
    items = first["items"]
    token = first["metadata"]["continue"]
    while token:
        page = operator.get(f"{PODS}?limit=5&continue={token}").json()
        items += page["items"]
        token = page["metadata"].get("continue")

    expected = [(ns, f"pod-{i:04d}") for ns in ("alpha", "beta", "gamma") for i in range(4)]
    expected.remove(("beta", "pod-0003"))
    assert _keys(items) == expected


def test_nodes_are_paged_once_each_in_name_order(operator: Client) -> None:
    names = [f"node-{index:03d}" for index in range(11)]
    Node.objects.bulk_create(Node(name=name) for name in reversed(names))

    items, _ = _walk(operator, NODES, 3)

    assert [name for _, name in _keys(items)] == names


def test_events_sharing_a_name_are_each_listed_once(operator: Client) -> None:
    now = timezone.now()
    Event.objects.all().delete()
    for namespace in ("alpha", "beta"):
        for index in range(7):
            Event.objects.create(
                namespace=namespace,
                name=f"event-{index % 2}",  # names repeat: the pk orders them
                involved_kind="Pod",
                involved_name=f"pod-{index}",
                reason="Scheduled",
                first_timestamp=now + dt.timedelta(seconds=index),
                last_timestamp=now + dt.timedelta(seconds=index),
            )

    items, _ = _walk(operator, EVENTS, 3)

    assert sorted(item["involvedObject"]["name"] for item in items) == sorted(
        f"pod-{index}" for index in range(7) for _ in range(2)
    )
    assert len(items) == 14
    assert _keys(items) == sorted(_keys(items))


def test_a_continue_token_carrying_the_old_three_part_key_still_continues(
    operator: Client,
) -> None:
    # Tokens handed out before the key lost its id ([namespace, name, id]).
    _store_pods({"alpha": 3, "beta": 3})
    token = operator.get(f"{PODS}?limit=2").json()["metadata"]["continue"]
    state = signing.loads(token, salt="kube.continue")
    state["k"] = [*state["k"], Pod.objects.get(namespace="alpha", name="pod-0001").pk]
    old = signing.dumps(state, salt="kube.continue")

    page = operator.get(f"{PODS}?limit=10&continue={old}").json()

    assert _keys(page["items"]) == [("alpha", "pod-0002")] + [
        ("beta", f"pod-{index:04d}") for index in range(3)
    ]


def test_a_page_deep_in_the_list_costs_the_queries_a_shallow_one_does(operator: Client) -> None:
    _store_pods({"alpha": 30, "beta": 30})
    first = operator.get(f"{PODS}?limit=5").json()
    shallow = first["metadata"]["continue"]
    token = shallow
    for _ in range(6):
        token = operator.get(f"{PODS}?limit=5&continue={token}").json()["metadata"]["continue"]

    counts = []
    for cont in (shallow, token):
        with CaptureQueriesContext(connection) as queries:
            assert operator.get(f"{PODS}?limit=5&continue={cont}").status_code == 200
        counts.append(len(queries.captured_queries))

    assert counts[0] == counts[1]
