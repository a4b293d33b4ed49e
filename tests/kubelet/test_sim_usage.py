"""``volcano.sh/sim-usage``: the share of its requests a simulated pod really uses."""

from __future__ import annotations

import pytest

from kubelet.api.resource_metrics import container_usage
from kubelet.sim_usage import usage_factors


@pytest.mark.parametrize(
    ("text", "factors"),
    [
        ("150%", {"cpu": 1.5, "memory": 1.5}),
        ("cpu=250%,memory=40%", {"cpu": 2.5, "memory": 0.4}),
        ("memory=0%", {"cpu": 1.0, "memory": 0.0}),
        ("lots", {"cpu": 1.0, "memory": 1.0}),
        ("gpu=50%", {"cpu": 1.0, "memory": 1.0}),
        ("cpu=-5%", {"cpu": 1.0, "memory": 1.0}),
    ],
)
def test_the_annotation_scales_requests_and_a_malformed_one_is_ignored(
    text: str, factors: dict[str, float]
) -> None:
    assert usage_factors({"volcano.sh/sim-usage": text}) == factors


def test_without_the_annotation_a_pod_uses_its_requests() -> None:
    assert usage_factors({}) == {"cpu": 1.0, "memory": 1.0}
    assert usage_factors(None) == {"cpu": 1.0, "memory": 1.0}


def test_a_container_uses_its_requests_times_the_factors() -> None:
    container = {"name": "main", "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}}

    used = container_usage(container, usage_factors({"volcano.sh/sim-usage": "cpu=150%"}))

    assert used == {"cpu": 3000, "memory": 1024**3 * 1000}
