"""Predicates plugin: which nodes a pod may land on, and the reason kube-scheduler gives when not."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from scheduler.engine.api.node_info import NodeInfo, Taint
from scheduler.engine.api.task_info import TaskInfo, TaskTemplate, Toleration
from scheduler.engine.api.types import FitCode, PredicateStatus, TaskStatus
from scheduler.engine.conf import load_conf
from scheduler.engine.framework import Decisions, open_session, run_session
from tests.engine.builders import build_cluster, build_node, build_pod, build_pod_group, conf

PLUGINS = ("priority", "gang", "predicates")


def pod(name: str, *, labels: dict[str, str] | None = None, **template: Any) -> TaskInfo:
    """Return a pending 1-CPU pod whose spec carries the given scheduling constraints."""
    task = build_pod(name)
    task.template = TaskTemplate(namespace="ns", labels=labels or {}, **template)
    return task


def running(
    name: str, node: str, *, labels: dict[str, str] | None = None, **template: Any
) -> TaskInfo:
    task = pod(name, labels=labels, **template)
    task.status, task.node_name = TaskStatus.RUNNING, node
    return task


def place(
    nodes: list[NodeInfo],
    pods: list[TaskInfo],
    *,
    others: Sequence[TaskInfo] = (),
    plugins: tuple[str, ...] = PLUGINS,
) -> Decisions:
    """Run allocate for one job of ``pods`` (min 1); ``others`` are single-pod jobs already there."""
    jobs = [build_pod_group("job", pods)]
    jobs += [build_pod_group(f"other-{i}", [t]) for i, t in enumerate(others)]
    return run_session(build_cluster(nodes, jobs), conf("allocate", plugins))


def reason_for(
    nodes: list[NodeInfo],
    task: TaskInfo,
    node: str,
    *,
    others: Sequence[TaskInfo] = (),
    text: str = "",
) -> PredicateStatus | None:
    """Return the predicate status of ``task`` on ``node``."""
    jobs = [build_pod_group("job", [task])] + [
        build_pod_group(f"other-{i}", [t]) for i, t in enumerate(others)
    ]
    plugins = "\n".join(["actions: allocate", "tiers:", "- plugins:", "  - name: predicates", text])
    ssn = open_session(build_cluster(nodes, jobs), load_conf(plugins))
    return ssn.predicate_fn(task, ssn.nodes[node])


# --- node selector and node affinity ---------------------------------------------------------------
def test_node_selector_sends_the_pod_to_the_labelled_node():
    nodes = [build_node("n1"), build_node("n2", labels={"disk": "ssd"})]
    decisions = place(nodes, [pod("job-task-0", node_selector={"disk": "ssd"})])
    assert decisions.binds == {"ns/job-task-0": "n2"}


def test_selector_mismatch_is_unresolvable_and_named_as_kube_scheduler_names_it():
    status = reason_for([build_node("n1")], pod("p-0", node_selector={"disk": "ssd"}), "n1")
    assert status is not None
    assert status.reason == "node(s) didn't match Pod's node affinity/selector"
    assert status.code is FitCode.UNSCHEDULABLE_AND_UNRESOLVABLE


def test_unplaceable_pod_reports_every_node_reason():
    nodes = [build_node("n1"), build_node("n2", taints=(Taint("dedicated", "gpu"),))]
    decisions = place(nodes, [pod("job-task-0", node_selector={"disk": "ssd"})])
    assert decisions.binds == {}
    assert decisions.task_fit_errors["ns/job-task-0"] == (
        "0/2 nodes are unavailable: 2 node(s) didn't match Pod's node affinity/selector."
    )


def _required(
    *expressions: dict[str, Any], fields: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    term: dict[str, Any] = {"matchExpressions": list(expressions)}
    if fields:
        term["matchFields"] = fields
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}
        }
    }


@dataclass
class AffinityCase:
    name: str
    affinity: dict[str, Any]
    expected: str
    labels: dict[str, dict[str, str]] = field(
        default_factory=lambda: {"n1": {"zone": "a", "gen": "3"}, "n2": {"zone": "b", "gen": "5"}}
    )


AFFINITY_CASES = [
    AffinityCase("In", _required({"key": "zone", "operator": "In", "values": ["b"]}), "n2"),
    AffinityCase("NotIn", _required({"key": "zone", "operator": "NotIn", "values": ["a"]}), "n2"),
    AffinityCase(
        "Exists",
        _required({"key": "ssd", "operator": "Exists"}),
        "n2",
        {"n1": {}, "n2": {"ssd": "yes"}},
    ),
    AffinityCase(
        "DoesNotExist",
        _required({"key": "ssd", "operator": "DoesNotExist"}),
        "n2",
        {"n1": {"ssd": "yes"}, "n2": {}},
    ),
    AffinityCase("Gt", _required({"key": "gen", "operator": "Gt", "values": ["4"]}), "n2"),
    AffinityCase("Lt", _required({"key": "gen", "operator": "Lt", "values": ["4"]}), "n1"),
    AffinityCase(
        "matchFields metadata.name",
        _required(fields=[{"key": "metadata.name", "operator": "In", "values": ["n2"]}]),
        "n2",
    ),
]


@pytest.mark.parametrize("case", AFFINITY_CASES, ids=lambda c: c.name)
def test_required_node_affinity_operators(case: AffinityCase) -> None:
    nodes = [build_node(name, labels=labels) for name, labels in case.labels.items()]
    decisions = place(nodes, [pod("job-task-0", affinity=case.affinity)])
    assert decisions.binds == {"ns/job-task-0": case.expected}


def test_node_affinity_off_by_argument_ignores_the_selector():
    status = reason_for(
        [build_node("n1")],
        pod("p-0", node_selector={"disk": "ssd"}),
        "n1",
        text="    arguments: {predicate.NodeAffinityEnable: false}",
    )
    assert status is None


# --- taints, unschedulable, pod count -----------------------------------------------------------
def test_untolerated_taint_is_refused_with_its_key_and_value():
    node = build_node("n1", taints=(Taint("dedicated", "gpu", "NoSchedule"),))
    status = reason_for([node], pod("p-0"), "n1")
    assert status is not None
    assert status.reason == "node(s) had untolerated taint {dedicated: gpu}"
    assert status.code is FitCode.UNSCHEDULABLE_AND_UNRESOLVABLE


@pytest.mark.parametrize(
    ("toleration", "fits"),
    [
        (Toleration("dedicated", "Equal", "gpu", "NoSchedule"), True),
        (Toleration("dedicated", "Exists"), True),
        (Toleration("", "Exists"), True),
        (Toleration("dedicated", "Equal", "cpu", "NoSchedule"), False),
        (Toleration("dedicated", "Equal", "gpu", "NoExecute"), False),
    ],
    ids=["equal", "exists-key", "exists-all", "other-value", "other-effect"],
)
def test_tolerations_decide_whether_a_tainted_node_fits(toleration: Toleration, fits: bool) -> None:
    node = build_node("n1", taints=(Taint("dedicated", "gpu", "NoSchedule"),))
    status = reason_for([node], pod("p-0", tolerations=(toleration,)), "n1")
    assert (status is None) is fits


def test_no_execute_taint_filters_and_prefer_no_schedule_does_not():
    nodes = [
        build_node("n1", taints=(Taint("a", "1", "NoExecute"),)),
        build_node("n2", taints=(Taint("b", "2", "PreferNoSchedule"),)),
    ]
    decisions = place(nodes, [pod("job-task-0")])
    assert decisions.binds == {"ns/job-task-0": "n2"}


def test_taint_filter_off_by_argument():
    node = build_node("n1", taints=(Taint("dedicated", "gpu", "NoSchedule"),))
    text = "    arguments: {predicate.TaintTolerationEnable: false}"
    assert reason_for([node], pod("p-0"), "n1", text=text) is None


def test_unschedulable_node_is_refused_unless_tolerated():
    node = build_node("n1")
    node.unschedulable = True
    status = reason_for([node], pod("p-0"), "n1")
    assert status is not None
    assert status.reason == "node(s) were unschedulable"
    assert status.code is FitCode.UNSCHEDULABLE_AND_UNRESOLVABLE
    tolerant = pod("p-1", tolerations=(Toleration("node.kubernetes.io/unschedulable", "Exists"),))
    node2 = build_node("n1")
    node2.unschedulable = True
    assert reason_for([node2], tolerant, "n1") is None


def test_full_node_refuses_with_pod_number_exceeded_which_preemption_may_resolve():
    node = build_node("n1", pods=2, cpu="8")
    others = [running("old-0", "n1"), running("old-1", "n1")]
    status = reason_for([node], pod("p-0"), "n1", others=others)
    assert status is not None
    assert status.reason == "node(s) pod number exceeded"
    assert status.code is FitCode.UNSCHEDULABLE


def test_pod_count_fills_nodes_to_their_pods_allocatable():
    nodes = [build_node("n1", pods=2, cpu="16"), build_node("n2", pods=2, cpu="16")]
    pods = [pod(f"job-task-{i}") for i in range(5)]
    decisions = place(nodes, pods)
    assert sorted(decisions.binds.values()) == ["n1", "n1", "n2", "n2"]


# --- inter-pod affinity -----------------------------------------------------------------------------
HOST = "kubernetes.io/hostname"


def _pod_terms(kind: str, labels: dict[str, str], key: str) -> dict[str, Any]:
    term = {"labelSelector": {"matchLabels": labels}, "topologyKey": key}
    return {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


def _hosts(count: int, zones: str = "") -> list[NodeInfo]:
    return [
        build_node(f"n{i}", labels={HOST: f"n{i}", "zone": zones[i] if zones else "z"})
        for i in range(count)
    ]


def test_anti_affinity_to_its_own_app_puts_one_pod_per_node():
    anti = _pod_terms("podAntiAffinity", {"app": "web"}, HOST)
    pods = [pod(f"job-task-{i}", labels={"app": "web"}, affinity=anti) for i in range(4)]
    decisions = place(_hosts(3), pods)
    assert sorted(decisions.binds.values()) == ["n0", "n1", "n2"]
    # The placed pods' own anti-affinity is checked first, as kube-scheduler does.
    assert decisions.task_fit_errors["ns/job-task-3"] == (
        "0/3 nodes are unavailable: 3 node(s) didn't satisfy existing pods anti-affinity rules."
    )


def test_affinity_follows_the_pod_it_wants_into_its_zone():
    nodes = _hosts(4, zones="aabb")
    db = running("db-0", "n3", labels={"app": "db"})
    web = pod("job-task-0", affinity=_pod_terms("podAffinity", {"app": "db"}, "zone"))
    decisions = place(nodes, [web], others=[db])
    assert decisions.binds == {"ns/job-task-0": "n2"}  # n2 and n3 are zone b; n2 sorts first


def test_affinity_without_any_matching_pod_is_unresolvable():
    web = pod("p-0", affinity=_pod_terms("podAffinity", {"app": "db"}, "zone"))
    status = reason_for(_hosts(2), web, "n0")
    assert status is not None
    assert status.reason == "node(s) didn't match pod affinity rules"
    assert status.code is FitCode.UNSCHEDULABLE_AND_UNRESOLVABLE


def test_first_pod_of_a_group_with_affinity_to_itself_may_start_anywhere():
    affinity = _pod_terms("podAffinity", {"app": "web"}, "zone")
    pods = [pod(f"job-task-{i}", labels={"app": "web"}, affinity=affinity) for i in range(3)]
    decisions = place(_hosts(4, zones="abab"), pods)
    zones = {"n0": "a", "n1": "b", "n2": "a", "n3": "b"}
    assert len(decisions.binds) == 3
    assert len({zones[n] for n in decisions.binds.values()}) == 1


def test_existing_pods_anti_affinity_keeps_new_pods_out_of_its_zone():
    nodes = _hosts(4, zones="aabb")
    loner = running("loner-0", "n0", affinity=_pod_terms("podAntiAffinity", {"app": "web"}, "zone"))
    web = pod("p-0", labels={"app": "web"})
    status = reason_for(nodes, web, "n1", others=[loner])
    assert status is not None
    assert status.reason == "node(s) didn't satisfy existing pods anti-affinity rules"
    decisions = place(nodes, [pod("job-task-0", labels={"app": "web"})], others=[loner])
    assert decisions.binds == {"ns/job-task-0": "n2"}


def test_anti_affinity_only_counts_pods_in_the_terms_namespaces():
    anti = _pod_terms("podAntiAffinity", {"app": "web"}, HOST)
    elsewhere = running("x-0", "n0", labels={"app": "web"})
    elsewhere.namespace = "other"
    elsewhere.uid = "other/x-0"
    elsewhere.template = TaskTemplate(namespace="other", labels={"app": "web"})
    decisions = place(_hosts(1), [pod("job-task-0", affinity=anti)], others=[elsewhere])
    assert decisions.binds == {"ns/job-task-0": "n0"}


# --- topology spread ------------------------------------------------------------------------------
def _spread(
    max_skew: int, key: str = "zone", when: str = "DoNotSchedule"
) -> tuple[dict[str, Any], ...]:
    return (
        {
            "maxSkew": max_skew,
            "topologyKey": key,
            "whenUnsatisfiable": when,
            "labelSelector": {"matchLabels": {"app": "web"}},
        },
    )


def test_topology_spread_keeps_zones_within_max_skew():
    nodes = _hosts(4, zones="aaab")
    pods = [
        pod(f"job-task-{i}", labels={"app": "web"}, topology_spread_constraints=_spread(1))
        for i in range(4)
    ]
    decisions = place(nodes, pods)
    zones = {"n0": "a", "n1": "a", "n2": "a", "n3": "b"}
    placed = [zones[n] for n in decisions.binds.values()]
    assert sorted(placed) == ["a", "a", "b", "b"]


def test_topology_spread_refuses_a_node_without_the_key_as_unresolvable():
    nodes = [build_node("n1", labels={"zone": "a"}), build_node("n2")]
    web = pod("p-0", labels={"app": "web"}, topology_spread_constraints=_spread(1))
    status = reason_for(nodes, web, "n2")
    assert status is not None
    assert status.reason == (
        "node(s) didn't match pod topology spread constraints (missing required label)"
    )
    assert status.code is FitCode.UNSCHEDULABLE_AND_UNRESOLVABLE


def test_topology_spread_skew_refusal_is_resolvable():
    nodes = _hosts(2, zones="ab")
    others = [running(f"w-{i}", "n0", labels={"app": "web"}) for i in range(2)]
    web = pod("p-0", labels={"app": "web"}, topology_spread_constraints=_spread(1))
    status = reason_for(nodes, web, "n0", others=others)
    assert status is not None
    assert status.reason == "node(s) didn't match pod topology spread constraints"
    assert status.code is FitCode.UNSCHEDULABLE


def test_schedule_anyway_constraints_do_not_filter():
    nodes = _hosts(2, zones="ab")
    others = [running(f"w-{i}", "n0", labels={"app": "web"}) for i in range(3)]
    soft = _spread(1, when="ScheduleAnyway")
    web = pod("p-0", labels={"app": "web"}, topology_spread_constraints=soft)
    assert reason_for(nodes, web, "n0", others=others) is None


def test_host_port_in_use_refuses_the_node():
    nodes = _hosts(2)
    holder = running("h-0", "n0", host_ports=(8080,))
    decisions = place(nodes, [pod("job-task-0", host_ports=(8080,))], others=[holder])
    assert decisions.binds == {"ns/job-task-0": "n1"}


# --- the two forms agree --------------------------------------------------------------------------
def test_batch_mask_matches_the_per_node_answers():
    nodes = _hosts(6, zones="aabbcc")
    nodes[1].taints = (Taint("dedicated", "x", "NoSchedule"),)
    nodes[4].unschedulable = True
    others = [
        running("db-0", "n2", labels={"app": "db"}),
        running("loner-0", "n5", affinity=_pod_terms("podAntiAffinity", {"app": "web"}, "zone")),
    ]
    web = pod(
        "p-0",
        labels={"app": "web"},
        affinity=_pod_terms("podAffinity", {"app": "db"}, "zone"),
        topology_spread_constraints=_spread(2),
    )
    jobs = [build_pod_group("job", [web])] + [
        build_pod_group(f"o-{i}", [t]) for i, t in enumerate(others)
    ]
    ssn = open_session(build_cluster(nodes, jobs), conf("allocate", ("predicates",)))
    rows = np.arange(len(nodes), dtype=np.int64)
    mask = ssn.predicate_mask(web, rows)
    singles = [ssn.predicate_fn(web, n) is None for n in ssn.node_list]
    assert mask.tolist() == singles
    assert singles == [False, False, True, True, False, False]


def test_an_evicted_pod_frees_its_slot_for_a_preemptor():
    node = build_node("n1", pods=2, cpu="8")
    victim = running("old-1", "n1")
    jobs = [build_pod_group("job", [pod("p-0")])]
    jobs += [build_pod_group(f"o-{i}", [t]) for i, t in enumerate([running("old-0", "n1"), victim])]
    ssn = open_session(build_cluster([node], jobs), conf("allocate", ("predicates",)))
    task = ssn.jobs["ns/job"].tasks["ns/p-0"]
    rows = np.array([0], dtype=np.int64)
    assert ssn.predicate_fn(task, ssn.nodes["n1"]) is not None
    ssn.statement().evict(victim, "preempted")
    assert ssn.predicate_fn(task, ssn.nodes["n1"]) is None
    assert ssn.predicate_mask(task, rows).tolist() == [True]
