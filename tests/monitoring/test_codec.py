"""A stored sample reads back as the figures that were stored (no database)."""

from __future__ import annotations

from monitoring.codec import decode, encode
from tests.monitoring.helpers import sample


def test_a_sample_reads_back_unchanged() -> None:
    data = sample(queues={"a": 0.25, "b": 0.5}, weight=3, binds=2, preempt=1)
    data["queues"]["allocated"][0] = [2**62, 7]  # an int64 amount stays exact

    assert decode(encode(data)) == data


def test_a_sample_without_queues_or_resources_reads_back() -> None:
    data = sample(queues={"a": 0.1})
    data["resources"] = []
    for key in ("allocated", "deserved", "guarantee", "capability"):
        data["queues"][key] = [[]]

    assert decode(encode(data)) == data
