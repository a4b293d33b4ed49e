"""gangpreempt/gangreclaim's victim domains: the HyperNodes a job searches, in order.

From Volcano's ``TestPickDomainsFromGradients_*`` (gangpreempt_test.go, gangreclaim_test.go); the
end-to-end cases are the ``hypernode-*`` scenario files in tests/scenarios/gangpreempt and
gangreclaim.
"""

from __future__ import annotations

from scheduler.engine.actions.gang_domains import (
    CLUSTER_TOP_HYPERNODE,
    candidate_domains,
    pick_domains,
)
from tests.engine.plugins.network_topology_aware_kit import two_racks_session


def test_pick_domains_drops_repeats_and_stops_at_max_domains() -> None:
    assert pick_domains([["d1", "d2"], ["d2", "d3"]], 2, "") == ["d1", "d2"]
    assert pick_domains([["d1", "d2"], ["d2", "d3"]], 8, "") == ["d1", "d2", "d3"]


def test_pick_domains_falls_back_only_when_the_gradient_names_none() -> None:
    assert pick_domains([], 8, CLUSTER_TOP_HYPERNODE) == [CLUSTER_TOP_HYPERNODE]
    assert pick_domains([["d1"]], 8, CLUSTER_TOP_HYPERNODE) == ["d1"]
    assert pick_domains([], 8, "") == []


def test_a_hard_topology_job_searches_its_eviction_gradient_widest_first() -> None:
    ssn = two_racks_session("3", "6")
    job = ssn.jobs["ns1/pg1"]
    assert candidate_domains(ssn, job, 8) == ["spine", "a", "b"]
    assert candidate_domains(ssn, job, 2) == ["spine", "a"]


def test_a_hard_topology_job_no_hypernode_can_hold_has_no_domain() -> None:
    ssn = two_racks_session("3", "17")
    assert candidate_domains(ssn, ssn.jobs["ns1/pg1"], 8) == []


def test_a_job_without_hard_topology_searches_the_whole_cluster() -> None:
    ssn = two_racks_session("3", "6")
    job = ssn.jobs["ns1/pg1"]
    job.network_topology = None
    assert candidate_domains(ssn, job, 8) == [CLUSTER_TOP_HYPERNODE]
