"""A queue's share over time, allocated against deserved, from the recorded history: the
monitoring fragment the queue's page loads (``/queues/<name>/history/``)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from scheduler.worker import run_once
from tests.console.compose import composed
from tests.monitoring.helpers import sample, store
from tests.scheduler.factories import make_gang, make_node, make_queue, use_conf

CONF = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
"""


@pytest.mark.django_db
def test_after_recorded_sessions_the_queue_page_draws_its_share(
    console_login: Callable[..., Any],
) -> None:
    use_conf(CONF)
    make_node("n1", cpu=8)
    make_queue("q1")
    make_gang("a", replicas=2, queue="q1")
    run_once(reconcile=False)
    run_once(reconcile=False)

    client = console_login("vic", "viewer")
    response = client.get("/queues/q1/history/", headers={"HX-Request": "true"})

    charts = response.context["share_charts"]
    resources = [resource for resource, _id, _fig in charts]
    assert "cpu" in resources
    cpu = charts[resources.index("cpu")][2]
    assert cpu["data"][0]["y"][-1] == 2.0  # two one-core pods, in cores
    body = composed(client, "/queues/q1/")  # the queue's page, its history loaded
    assert 'data-figure="queue-history-' in body
    assert "No recorded history" not in body


@pytest.mark.django_db
def test_a_queue_without_history_shows_an_empty_state(console_login: Callable[..., Any]) -> None:
    make_queue("q1")
    body = composed(console_login("vic", "viewer"), "/queues/q1/")
    assert "No recorded history for this queue in this range yet" in body
    assert 'data-figure="queue-history-' not in body


@pytest.mark.django_db
def test_the_range_in_the_url_picks_the_samples_drawn(console_login: Callable[..., Any]) -> None:
    make_queue("q1")
    now = timezone.now()
    store(now - timedelta(hours=3), sample(queues={"q1": 3.0}), resolution=60)
    client = console_login("vic", "viewer")

    history = "/queues/q1/history/"
    assert client.get(history).context["share_charts"] == []  # the last hour: nothing
    six = client.get(f"{history}?range=6h")
    assert [r for r, _i, _f in six.context["share_charts"]] == ["cpu"]  # no memory held
    assert 'aria-current="true">6h<' in composed(client, "/queues/q1/?range=6h")
    # An unknown range falls back to the last hour instead of failing.
    assert client.get("/queues/q1/?range=9y").status_code == 200
    assert client.get(f"{history}?range=9y").status_code == 200
