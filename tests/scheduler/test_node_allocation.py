"""A node's page: its allocation over time per resource, from the nodes' recorded history."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from scheduler.charts import node_allocation_figure
from scheduler.worker import run_once
from tests.scheduler.factories import GI, make_gang, make_node


def test_the_chart_draws_each_advertised_resource_in_percent_of_allocatable() -> None:
    times = ["2026-01-01T00:00:00+00:00", "2026-01-01T00:00:10+00:00"]
    fig = node_allocation_figure(
        times,
        {
            "cpu": [1000, 3000],
            "memory": [0, 8 * GI],
            "nvidia.com/gpu": [0, 0],
            "pods": [1000, 2000],
        },
        {"cpu": 4000, "memory": 16 * GI, "nvidia.com/gpu": 0, "pods": 110_000},
    )
    lines = {trace.name: trace for trace in fig.data}
    assert set(lines) == {"cpu", "memory", "pods"}  # no GPUs advertised: no line
    assert list(lines["cpu"].y) == [25.0, 75.0]
    assert list(lines["memory"].y) == [0.0, 50.0]
    assert list(lines["memory"].customdata) == [0.0, 8.0]  # GiB in the hover
    assert fig.layout.yaxis.ticksuffix == "%"


@pytest.mark.django_db
def test_after_recorded_sessions_the_node_page_draws_its_allocation(
    console_login: Callable[..., Any], settings: Any
) -> None:
    settings.VOLCANO_HISTORY_NODE_PERIOD = 0
    make_node("n1", cpu=4)
    make_gang("g", replicas=2, cpu=1)
    run_once(reconcile=False)
    run_once(reconcile=False)

    response = console_login("vic", "viewer").get("/nodes/n1/")

    figure = response.context["allocation"]
    cpu = next(t for t in figure["data"] if t["name"] == "cpu")
    assert cpu["y"][-1] == 50.0
    assert 'data-figure="node-allocation-figure"' in response.content.decode()


@pytest.mark.django_db
def test_a_node_without_history_shows_an_empty_state(console_login: Callable[..., Any]) -> None:
    make_node("n1")
    body = console_login("vic", "viewer").get("/nodes/n1/?range=7d").content.decode()
    assert "No recorded history for this node in this range yet" in body
    assert 'aria-current="true">7d<' in body
