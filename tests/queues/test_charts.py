"""Charts of queue shares: a queue's allocated against its deserved share over time."""

from __future__ import annotations

from queues.charts import queue_share_history_figure

GI = 1024**3 * 1000


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
