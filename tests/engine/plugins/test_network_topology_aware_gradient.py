"""network-topology-aware's HyperNode gradient asked for eviction, and its cap argument.

From Volcano's ``TestReverseAndCapEvictionGradients``, the evict cases of
``TestHyperNodeGradientPreFiltering`` and ``TestNew``'s reading of
``hypernode.gradient.evict.max-hypernodes`` (in ``network_topology_aware_test.go``).
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from apis.errors import ConfError
from scheduler.engine.framework import SearchPurpose
from scheduler.engine.framework.arguments import validate_arguments
from scheduler.engine.plugins.network_topology_aware import (
    NAME,
    NetworkTopologyAwarePlugin,
    reverse_and_cap,
)
from tests.engine.plugins.network_topology_aware_kit import (
    TOP,
    hard_job,
    hypernode,
    node,
    pod,
    session,
    two_racks_session,
)

EVICT = SearchPurpose.EVICT


def test_reverse_and_cap_keeps_the_widest_tiers_and_the_last_of_a_cut_tier() -> None:
    gradient = [["a", "b"], ["c", "d"]]
    assert reverse_and_cap(gradient, 3) == [["c", "d"], ["b"]]
    assert reverse_and_cap(gradient, 2) == [["c", "d"]]
    assert reverse_and_cap(gradient, 8) == [["c", "d"], ["a", "b"]]


def test_reverse_and_cap_without_a_limit_leaves_the_gradient_as_it_is() -> None:
    gradient = [["a", "b"], ["c", "d"]]
    assert reverse_and_cap(gradient, 0) == gradient


def _gradient(busy: str, minimum_cpu: str, purpose: SearchPurpose, **args: object) -> list:  # type: ignore[type-arg]
    ssn = two_racks_session(busy, minimum_cpu, dict(args) or None)
    job = ssn.jobs["ns1/pg1"]
    assert job.min_resources is not None
    minimum = ssn.resource_index.vector(job.min_resources)
    return ssn.hypernode_gradient(job, TOP, 2, "", minimum, purpose)


def test_allocate_keeps_hypernodes_whose_idle_covers_the_minimum_narrowest_first() -> None:
    # rack a has 5 cpu idle of 8: too little for 6
    assert _gradient("3", "6", SearchPurpose.ALLOCATE) == [["b"], ["spine"]]


def test_allocate_keeps_a_hypernode_whose_future_idle_covers_the_minimum() -> None:
    # "idle insufficient, futureIdle sufficient": the busy pod on a1 is being deleted
    objects = [
        node("a1", "4"), node("a2", "4"), hypernode("a", 1, ["a1", "a2"]),
        hypernode("spine", 2, ["a"], "HyperNode"), *hard_job("pg1", "ns1", "6", 2),
    ]  # fmt: skip
    releasing = pod("busy", "other", "a1", "3")
    releasing["metadata"]["deletionTimestamp"] = "2024-01-01T00:59:00Z"
    for busy, expected in ((pod("busy", "other", "a1", "3"), []), (releasing, [["a"], ["spine"]])):
        ssn = session([*objects, busy])
        job = ssn.jobs["ns1/pg1"]
        assert job.min_resources is not None
        minimum = ssn.resource_index.vector(job.min_resources)
        assert ssn.hypernode_gradient(job, TOP, 2, "", minimum) == expected


def test_the_allocate_purpose_is_the_default() -> None:
    ssn = two_racks_session("3", "6")
    job = ssn.jobs["ns1/pg1"]
    assert job.min_resources is not None
    minimum = ssn.resource_index.vector(job.min_resources)
    assert ssn.hypernode_gradient(job, TOP, 2, "", minimum) == [["b"], ["spine"]]


def test_evict_keeps_hypernodes_whose_allocatable_covers_the_minimum_widest_first() -> None:
    # "Evict purpose - idle insufficient": eviction can free rack a, so it stays
    assert _gradient("3", "6", EVICT) == [["spine"], ["a", "b"]]
    # "Evict purpose - allocatable insufficient": no rack holds 9 cpu, only the spine does
    assert _gradient("3", "9", EVICT) == [["spine"]]
    assert _gradient("3", "17", EVICT) == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, [["spine"], ["a", "b"]]), (2, [["spine"], ["b"]]), (1, [["spine"]]),
     (0, [["spine"], ["a", "b"]]), (-3, [["spine"], ["a", "b"]])],
)  # fmt: skip
def test_evict_gradient_is_capped_by_max_hypernodes(value: int | None, expected: list) -> None:  # type: ignore[type-arg]
    args = {} if value is None else {"hypernode.gradient.evict.max-hypernodes": value}
    assert _gradient("3", "6", EVICT, **args) == expected


def _plugin(raw: Mapping[str, object]) -> NetworkTopologyAwarePlugin:
    schema = NetworkTopologyAwarePlugin.arguments_schema
    arguments = validate_arguments(schema, raw, field="arguments", owner=NAME)
    return NetworkTopologyAwarePlugin(arguments)


@pytest.mark.parametrize(("given", "expected"), [(None, 8), (3, 3), (0, 8), (-1, 8)])
def test_max_hypernodes_defaults_to_8_when_unset_or_not_positive(
    given: int | None, expected: int
) -> None:
    raw = {} if given is None else {"hypernode.gradient.evict.max-hypernodes": given}
    assert _plugin(raw).evict_max_hypernodes() == expected


def test_a_max_hypernodes_that_is_no_number_is_refused() -> None:
    # Volcano keeps its default silently; this engine's configuration refuses the value, naming it
    with pytest.raises(ConfError, match="max-hypernodes"):
        _plugin({"hypernode.gradient.evict.max-hypernodes": "many"})
