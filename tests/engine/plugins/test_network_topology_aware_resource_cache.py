"""network-topology-aware's per-HyperNode resources, seen through the gradient's filters.

From Volcano's ``Test_initHyperNodeResourceCache``: nodes spread over four tiers of HyperNodes
(node i in the HyperNode i mod n of each tier), each HyperNode's allocatable and use the sum of its
nodes'. The allocate gradient keeps a HyperNode whose idle covers the job's minimum, the evict
gradient one whose allocatable does, so the sums show at their exact bounds.
"""

from __future__ import annotations

from typing import Any

import pytest

from scheduler.engine.framework import SearchPurpose
from tests.engine.plugins.network_topology_aware_kit import (
    TOP,
    hard_job,
    modulo_tree,
    node,
    pod,
    session,
)

NODES = 16
PER_TIER = (8, 4, 2, 1)  # HyperNodes per tier, tier 1 first


def _name(tier: int, index: int) -> str:
    return f"hn-{tier}-{index}"


def _objects(min_cpu: str) -> list[dict[str, Any]]:
    """16 nodes of 4 cpu, each with a 2-cpu pod running: a tier-t HyperNode of k nodes has 4k cpu
    allocatable and 2k idle."""
    objects = [node(f"n{i}", "4") for i in range(NODES)]
    objects += [pod(f"busy{i}", "other", f"n{i}", "2") for i in range(NODES)]
    objects += modulo_tree(NODES, PER_TIER)
    return [*objects, *hard_job("pg1", "ns1", min_cpu, len(PER_TIER))]


def _gradient(min_cpu: str, purpose: SearchPurpose, **arguments: object) -> list[list[str]]:
    ssn = session(_objects(min_cpu), dict(arguments) or None)
    job = ssn.jobs["ns1/pg1"]
    assert job.min_resources is not None
    minimum = ssn.resource_index.vector(job.min_resources)
    return ssn.hypernode_gradient(job, TOP, len(PER_TIER), "", minimum, purpose)


def _sorted(gradient: list[list[str]]) -> list[list[str]]:
    """Each tier's HyperNodes by name (the gradient lists them breadth-first)."""
    return [sorted(group) for group in gradient]


def _tier(tier: int) -> list[str]:
    return [_name(tier, h) for h in range(PER_TIER[tier - 1])]


@pytest.mark.parametrize(
    ("min_cpu", "lowest_kept"),
    [("4", 1), ("5", 2), ("8", 2), ("9", 3), ("16", 3), ("17", 4), ("32", 4)],
)
def test_idle_per_hypernode_is_the_sum_of_its_nodes_idle(min_cpu: str, lowest_kept: int) -> None:
    expected = [_tier(t) for t in range(lowest_kept, len(PER_TIER) + 1)]
    assert _sorted(_gradient(min_cpu, SearchPurpose.ALLOCATE)) == expected


def test_no_hypernode_is_kept_beyond_the_cluster_idle() -> None:
    assert _gradient("33", SearchPurpose.ALLOCATE) == []


@pytest.mark.parametrize(
    ("min_cpu", "lowest_kept"), [("8", 1), ("9", 2), ("16", 2), ("17", 3), ("64", 4)]
)
def test_allocatable_per_hypernode_is_the_sum_of_its_nodes_allocatable(
    min_cpu: str, lowest_kept: int
) -> None:
    expected = [_tier(t) for t in range(len(PER_TIER), lowest_kept - 1, -1)]
    uncapped = {"hypernode.gradient.evict.max-hypernodes": 100}
    assert _sorted(_gradient(min_cpu, SearchPurpose.EVICT, **uncapped)) == expected
    assert _gradient("65", SearchPurpose.EVICT, **uncapped) == []


def test_the_evict_gradient_keeps_8_hypernodes_by_default_the_last_of_the_cut_tier() -> None:
    # 1 + 2 + 4 HyperNodes in tiers 4 to 2, then the last one of tier 1 (breadth-first, hn-1-7)
    assert _sorted(_gradient("8", SearchPurpose.EVICT)) == [
        _tier(4), _tier(3), _tier(2), [_name(1, 7)]
    ]  # fmt: skip
