"""numa-aware's CPU hints, policies and CPU choice (Volcano's policy and cpumanager tests)."""

from __future__ import annotations

import pytest

from scheduler.engine.api.numa import CpuInfo, NumaContainer, NumatopoInfo, format_cpuset
from scheduler.engine.plugins.numaaware_policy import (
    Hint,
    allocate_cpus,
    cpu_hints,
    policy_predicate,
)
from scheduler.engine.util.numa_manifest import parse_cpuset

# Two NUMA nodes of two cores of two threads, one socket each (Volcano's cpu_mng_test).
TOPO = NumatopoInfo(
    name="n1",
    cpu_detail={cpu: CpuInfo(numa=cpu // 4, socket=cpu // 4, core=cpu // 2) for cpu in range(8)},
)


def _c(cpus: int) -> NumaContainer:
    return NumaContainer("main", cpus * 1000)


@pytest.mark.parametrize(
    ("request_cpus", "available", "expect"),
    [
        (4, range(8), {(frozenset({0}), True), (frozenset({1}), True), (frozenset({0, 1}), False)}),
        (4, range(1, 8), {(frozenset({1}), True), (frozenset({0, 1}), False)}),
        (5, range(8), {(frozenset({0, 1}), True)}),
        (8, range(8), {(frozenset({0, 1}), True)}),
        (9, range(8), set()),
        (4, range(2, 6), {(frozenset({0, 1}), False)}),
    ],
)
def test_cpu_hints(
    request_cpus: int, available: range, expect: set[tuple[frozenset[int], bool]]
) -> None:
    hints = cpu_hints(_c(request_cpus), TOPO, frozenset(available))
    assert hints is not None
    assert {(h.affinity, h.preferred) for h in hints} == expect


def test_fractional_or_missing_cpu_gives_no_preference() -> None:
    assert cpu_hints(NumaContainer("a", 1500), TOPO, frozenset(range(8))) is None
    assert cpu_hints(NumaContainer("a", None), TOPO, frozenset(range(8))) is None


@pytest.mark.parametrize(
    ("request_cpus", "available", "affinity", "expect"),
    [
        (4, range(8), {0}, "0-3"),
        (4, range(1, 8), {1}, "4-7"),
        (5, range(8), {0, 1}, "0-4"),
        (5, range(1, 8), {0, 1}, "1,4-7"),
        (8, range(1, 8), {0, 1}, ""),
    ],
)
def test_allocate(request_cpus: int, available: range, affinity: set[int], expect: str) -> None:
    best = Hint(frozenset(affinity), True)
    assert (
        format_cpuset(allocate_cpus(_c(request_cpus), best, TOPO, frozenset(available))) == expect
    )


CPU_HINTS = [Hint(frozenset({0, 1}), False), Hint(frozenset({0}), True)]
GPU_HINTS = [Hint(frozenset({0, 1}), False), Hint(frozenset({0}), True)]


@pytest.mark.parametrize("policy", ["single-numa-node", "restricted", "best-effort"])
def test_preferred_single_node_wins(policy: str) -> None:
    best, admit = policy_predicate(policy, [0, 1], [CPU_HINTS, GPU_HINTS])
    assert best == Hint(frozenset({0}), True)
    assert admit


def test_policies_on_a_cross_numa_hint() -> None:
    hints = [[Hint(frozenset({0, 1}), False)]]
    assert policy_predicate("single-numa-node", [0, 1], hints)[1] is False
    assert policy_predicate("restricted", [0, 1], hints)[1] is False
    assert policy_predicate("best-effort", [0, 1], hints) == (Hint(frozenset({0, 1}), False), True)
    assert policy_predicate("none", [0, 1], hints) == (Hint(None, False), True)


def test_disjoint_preferred_hints_merge_to_nothing() -> None:
    best, admit = policy_predicate(
        "restricted", [0, 1], [[Hint(frozenset({0}), True)], [Hint(frozenset({1}), True)]]
    )
    assert best == Hint(frozenset({0, 1}), False)
    assert not admit


def test_no_hint_at_all_is_refused_but_no_preference_is_admitted() -> None:
    assert policy_predicate("single-numa-node", [0, 1], [[]])[1] is False
    assert policy_predicate("single-numa-node", [0, 1], [None])[1] is True


def test_cpuset_round_trip() -> None:
    assert parse_cpuset("0,2-4, 7", "f") == frozenset({0, 2, 3, 4, 7})
    assert format_cpuset(frozenset({0, 2, 3, 4, 7})) == "0,2-4,7"


def test_reserved_cpus_are_taken_out_before_hints() -> None:
    """``spec.resReserved.cpu: 1`` takes one CPU (by topology: CPU 0) out of NUMA node 0."""
    reserved = NumatopoInfo(name="n1", cpu_detail=TOPO.cpu_detail, reserved_cpu_millis=1000)
    hints = cpu_hints(_c(4), reserved, frozenset(range(8)))
    assert hints is not None
    assert {(h.affinity, h.preferred) for h in hints} == {
        (frozenset({1}), True),
        (frozenset({0, 1}), False),
    }
    best = Hint(frozenset({0, 1}), False)
    assert 0 not in allocate_cpus(_c(7), best, reserved, frozenset(range(8)))
