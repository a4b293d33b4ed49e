"""A queue's page: its share over time, allocated against deserved, from the recorded history."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from queues.charts import queue_share_history_figure
from scheduler.worker import run_once
from tests.monitoring.helpers import sample, store
from tests.scheduler.factories import make_gang, make_node, make_queue, use_conf

GI = 1024**3 * 1000
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


def test_the_chart_draws_allocated_filled_against_deserved_in_the_resources_unit() -> None:
    times = ["2026-01-01T00:00:00+00:00", "2026-01-01T00:01:00+00:00"]
    fig = queue_share_history_figure("memory", times, [2 * GI, None], [4 * GI, 4 * GI])
    allocated, deserved = fig.data
    assert (allocated.name, deserved.name) == ("allocated", "deserved")
    assert list(allocated.y) == [2.0, None]  # GiB; None: the queue was not there
    assert list(deserved.y) == [4.0, 4.0]
    assert allocated.fill == "tozeroy"
    assert fig.layout.title.text == "memory (GiB)"
    assert list(allocated.x) == times


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

    response = console_login("vic", "viewer").get("/queues/q1/")

    charts = response.context["share_charts"]
    resources = [resource for resource, _id, _fig in charts]
    assert "cpu" in resources
    cpu = charts[resources.index("cpu")][2]
    assert cpu["data"][0]["y"][-1] == 2.0  # two one-core pods, in cores
    body = response.content.decode()
    assert 'data-figure="queue-history-' in body
    assert "No recorded history" not in body


@pytest.mark.django_db
def test_a_queue_without_history_shows_an_empty_state(console_login: Callable[..., Any]) -> None:
    make_queue("q1")
    body = console_login("vic", "viewer").get("/queues/q1/").content.decode()
    assert "No recorded history for this queue in this range yet" in body
    assert 'data-figure="queue-history-' not in body


@pytest.mark.django_db
def test_the_range_in_the_url_picks_the_samples_drawn(console_login: Callable[..., Any]) -> None:
    make_queue("q1")
    now = timezone.now()
    store(now - timedelta(hours=3), sample(queues={"q1": 3.0}), resolution=60)
    client = console_login("vic", "viewer")

    assert client.get("/queues/q1/").context["share_charts"] == []  # the last hour: nothing
    six = client.get("/queues/q1/?range=6h")
    assert [r for r, _i, _f in six.context["share_charts"]] == ["cpu"]  # no memory held
    assert 'aria-current="true">6h<' in six.content.decode()
    # An unknown range falls back to the last hour instead of failing.
    assert client.get("/queues/q1/?range=9y").status_code == 200
