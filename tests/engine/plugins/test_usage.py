"""Usage plugin: nodes over a measured-use threshold take no new pod; the least used score best."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest

from apis.errors import ConfError, ManifestError
from scheduler.engine.api.node_info import NODE_METRICS_PERIOD, NodeInfo, NodeUsage
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import FitCode, TaskStatus
from scheduler.engine.conf import load_conf
from scheduler.engine.framework import open_session
from scheduler.engine.framework.session import Session
from scheduler.engine.plugins.usage import (
    CPU_OVERLOAD,
    MEMORY_OVERLOAD,
    UsagePlugin,
    estimate_pod_resource,
)
from scheduler.engine.util.manifests import pod_limits
from scheduler.engine.util.node_usage import read_node_usage
from tests.engine.builders import T0, build_cluster, build_node, build_pod, build_pod_group, res

GI = 1024**3 * 1000  # milli-bytes
MI = 1024**2 * 1000


def usage_conf(arguments: str = "", flags: str = "") -> str:
    """Return a one-tier conf of predicates + usage with the given argument lines."""
    text = "actions: allocate\ntiers:\n- plugins:\n  - name: predicates\n  - name: usage\n"
    text += flags
    if arguments:
        text += "    arguments:\n" + "".join(f"      {line}\n" for line in arguments.split(";"))
    return text


def node(name: str, cpu: float | None = None, mem: float = 0, age_minutes: int = 0) -> NodeInfo:
    """Return a 4 CPU / 8Gi node; with ``cpu`` given, metrics taken ``age_minutes`` ago."""
    built = build_node(name, pods=10)
    if cpu is not None:
        built.resource_usage = NodeUsage(
            T0 - timedelta(minutes=age_minutes),
            {NODE_METRICS_PERIOD: cpu},
            {NODE_METRICS_PERIOD: mem},
        )
    return built


def session(nodes: list[NodeInfo], text: str, others: tuple[TaskInfo, ...] = ()) -> Session:
    jobs = [build_pod_group("job", [build_pod("p1")])]
    jobs += [build_pod_group(f"o-{i}", [t]) for i, t in enumerate(others)]
    return open_session(build_cluster(nodes, jobs), load_conf(text))


def plugin(text: str) -> UsagePlugin:
    conf = load_conf(text)
    option = conf.tiers[0].plugins[1]
    return UsagePlugin(option.arguments)


def scores(ssn: Session) -> list[float]:
    task = ssn.jobs["ns/job"].tasks["ns/p1"]
    rows = np.arange(len(ssn.node_list), dtype=np.int64)
    return [round(float(x), 6) for x in ssn.node_scores(task, rows)]


# --- arguments ---------------------------------------------------------------------------


def test_defaults_are_volcanos():
    conf = plugin(usage_conf()).config()

    assert (conf.usage_weight, conf.cpu_weight, conf.memory_weight) == (5, 1, 1)
    assert (conf.cpu_threshold, conf.mem_threshold) == (80, 80)
    assert (conf.request_ratio, conf.burst_ratio) == (0.7, 0.0)
    assert (conf.risk_threshold, conf.risk_factor) == (0.6, 1.2)
    assert (conf.be_cpu, conf.be_mem) == (250, 200 * MI)


def test_nested_sections_are_read_as_volcano_writes_them():
    text = usage_conf(
        "thresholds: {cpu: 70, mem: 60};estimator: {request_ratio: 0.8, burst_ratio: 0.3, "
        "risk_threshold: 0.75, risk_factor: 1.5, be_cpu: 500m, be_mem: 300Mi}"
    )
    conf = plugin(text).config()

    assert (conf.cpu_threshold, conf.mem_threshold) == (70, 60)
    assert (conf.request_ratio, conf.burst_ratio) == (0.8, 0.3)
    assert (conf.risk_threshold, conf.risk_factor) == (0.75, 1.5)
    assert (conf.be_cpu, conf.be_mem) == (500, 300 * MI)


def test_plain_numbers_for_best_effort_are_millicpu_and_mib():
    conf = plugin(usage_conf("estimator: {be_cpu: 500, be_mem: 200}")).config()

    assert (conf.be_cpu, conf.be_mem) == (500, 200 * MI)


def test_out_of_range_values_keep_their_defaults():
    text = usage_conf(
        "usage.weight: -1;cpu.weight: -1;memory.weight: -1;thresholds: {cpu: -1, mem: 101};"
        "estimator: {request_ratio: 1.5, burst_ratio: -0.1, risk_threshold: 2.0, "
        "risk_factor: 0.5, be_cpu: '-1', be_mem: bad}"
    )
    conf = plugin(text).config()

    assert (conf.usage_weight, conf.cpu_weight, conf.memory_weight) == (5, 1, 1)
    assert (conf.cpu_threshold, conf.mem_threshold) == (80, 80)
    assert (conf.request_ratio, conf.burst_ratio, conf.risk_threshold) == (0.7, 0.0, 0.6)
    assert conf.risk_factor == 1.2
    assert (conf.be_cpu, conf.be_mem) == (250, 200 * MI)


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ("usage.weight: '7'", "tiers[0].plugins[1].arguments.usage.weight"),
        ("thresholds: {cpu: '85'}", "tiers[0].plugins[1].arguments.thresholds.cpu"),
        ("thresholds: {cpus: 85}", "tiers[0].plugins[1].arguments.thresholds.cpus"),
        ("thresholds: 85", "tiers[0].plugins[1].arguments.thresholds"),
        ("thresholds.cpu: 85", "tiers[0].plugins[1].arguments.thresholds.cpu"),
    ],
)
def test_a_wrong_argument_is_refused_at_its_field(arguments: str, field: str) -> None:
    with pytest.raises(ConfError) as refused:
        load_conf(usage_conf(arguments))

    assert refused.value.field == field


# --- filter ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cpu", "mem", "reason"),
    [(81, 60, CPU_OVERLOAD), (60, 81, MEMORY_OVERLOAD), (90, 90, CPU_OVERLOAD)],
)
def test_a_node_over_a_threshold_refuses_unresolvably(cpu: float, mem: float, reason: str) -> None:
    ssn = session([node("n1", cpu, mem)], usage_conf())
    task = ssn.jobs["ns/job"].tasks["ns/p1"]

    status = ssn.predicate_fn(task, ssn.nodes["n1"])

    assert status is not None
    assert (status.reason, status.code, status.plugin) == (
        reason,
        FitCode.UNSCHEDULABLE_AND_UNRESOLVABLE,
        "usage",
    )
    assert not ssn.predicate_mask(task, np.array([0], dtype=np.int64))[0]


@pytest.mark.parametrize(
    "built",
    [
        node("n1", 80, 79),  # at the threshold
        node("n1", 90, 81, age_minutes=6),  # metrics older than 5 minutes
        node("n1"),  # never measured
    ],
    ids=["at-threshold", "stale", "no-metrics"],
)
def test_a_node_at_the_threshold_or_without_fresh_metrics_passes(built: NodeInfo) -> None:
    ssn = session([built], usage_conf())
    task = ssn.jobs["ns/job"].tasks["ns/p1"]

    assert ssn.predicate_fn(task, ssn.nodes["n1"]) is None
    assert ssn.predicate_mask(task, np.array([0], dtype=np.int64))[0]


def test_threshold_argument_moves_the_limit():
    ssn = session([node("n1", 85, 10)], usage_conf("thresholds: {cpu: 90}"))
    task = ssn.jobs["ns/job"].tasks["ns/p1"]

    assert ssn.predicate_fn(task, ssn.nodes["n1"]) is None


def test_predicate_off_lets_an_overloaded_node_through():
    ssn = session([node("n1", 95, 95)], usage_conf(flags="    enablePredicate: false\n"))
    task = ssn.jobs["ns/job"].tasks["ns/p1"]

    assert ssn.predicate_fn(task, ssn.nodes["n1"]) is None


# --- score -------------------------------------------------------------------------------


def test_scores_follow_volcanos_table_with_default_weights():
    nodes = [
        node("n1", 30, 50),
        node("n2", 60, 50),
        node("n3", 60, 80),
        node("n4", 10, 20, age_minutes=6),
        node("n5"),
    ]

    assert scores(session(nodes, usage_conf())) == [300, 225, 150, 0, 0]


def test_scores_follow_volcanos_table_when_memory_weighs_more():
    nodes = [node("n1", 30, 50), node("n2", 60, 50), node("n3", 60, 80)]
    text = usage_conf("cpu.weight: 2;memory.weight: 8")

    assert scores(session(nodes, text)) == [270, 240, 120]


def test_zero_weights_score_nothing():
    nodes = [node("n1", 30, 50)]

    assert scores(session(nodes, usage_conf("cpu.weight: 0;memory.weight: 0"))) == [0]


def test_a_bound_pod_counts_seventy_percent_of_its_request_as_shadow_load():
    # n1: 4 CPU / 8Gi at 10% / 10%; a bound 2 CPU / 4Gi pod adds 1.4 CPU and 2.8Gi:
    # cpu (0.4 + 1.4) / 4 = 0.45, mem (0.8 + 2.8) / 8 = 0.45, score (0.55 + 0.55) / 2 * 500.
    bound = build_pod("b", cpu="2", memory="4Gi", status=TaskStatus.BOUND, node="n1")
    ssn = session([node("n1", 10, 10), node("n2", 10, 10)], usage_conf(), (bound,))

    assert scores(ssn) == [275, 450]


def test_a_running_pod_adds_no_shadow_load():
    running = build_pod("r", cpu="2", memory="4Gi", status=TaskStatus.RUNNING, node="n1")
    ssn = session([node("n1", 10, 10)], usage_conf(), (running,))

    assert scores(ssn) == [450]


def test_a_best_effort_pod_counts_its_configured_estimate():
    # 1 CPU and 2Gi per BestEffort pod: cpu (0.4 + 1) / 4, mem (0.8 + 2) / 8 = 0.35 both.
    bound = build_pod("b", best_effort=True, status=TaskStatus.BOUND, node="n1")
    text = usage_conf("estimator: {be_cpu: 1000m, be_mem: 2Gi}")
    ssn = session([node("n1", 10, 10)], text, (bound,))

    assert scores(ssn) == [325]


def test_a_loaded_node_multiplies_new_estimates_by_the_risk_factor():
    # n1 at 60% / 60% has reached risk_threshold 0.6, so 2 CPU / 4Gi counts 1.4 x 1.2 = 1.68
    # CPU and 3.36Gi: cpu (2.4 + 1.68) / 4 = 1.02 -> 1 (capped), mem (4.8 + 3.36) / 8 -> 1.
    bound = build_pod("b", cpu="2", memory="4Gi", status=TaskStatus.BOUND, node="n1")
    ssn = session([node("n1", 60, 60)], usage_conf("thresholds: {cpu: 100, mem: 100}"), (bound,))

    assert scores(ssn) == [0]


def test_allocation_adds_and_deallocation_takes_back_the_estimate():
    ssn = session([node("n1", 10, 10), node("n2", 10, 10)], usage_conf())
    task = ssn.jobs["ns/job"].tasks["ns/p1"]
    before = scores(ssn)

    ssn.place_task(task, ssn.nodes["n1"], TaskStatus.ALLOCATED)
    during = scores(ssn)
    ssn.unplace_task(task)

    # 1 CPU / 1Gi counts 0.7 CPU and 0.7Gi: cpu (0.4 + 0.7) / 4, mem (0.8 + 0.7) / 8.
    assert during[0] == pytest.approx((1 - 1.1 / 4 + 1 - 1.5 / 8) / 2 * 500)
    assert during[1] == before[1]
    assert scores(ssn) == before


def test_the_burst_ratio_counts_a_share_of_the_limit_above_the_request():
    # 1 CPU requested, 3 CPU limit, burst 0.5: 0.7 + 2 x 0.5 = 1.7 CPU; memory has no limit,
    # so 0.7Gi: cpu (0.4 + 1.7) / 4 = 0.525, mem (0.8 + 0.7) / 8 = 0.1875.
    bound = build_pod("b", cpu="1", memory="1Gi", status=TaskStatus.BOUND, node="n1")
    bound.limits = res(cpu="3")
    ssn = session([node("n1", 10, 10)], usage_conf("estimator: {burst_ratio: 0.5}"), (bound,))

    assert scores(ssn) == [pytest.approx((0.475 + 0.8125) / 2 * 500)]


def test_estimate_is_clamped_to_the_limit_and_uses_the_burst():
    assert estimate_pod_resource(1000, 2000, 0.7, 0.3, 1.0) == pytest.approx(1000)
    assert estimate_pod_resource(1000, 0, 0.7, 0.3, 1.2) == pytest.approx(840)
    assert estimate_pod_resource(1000, 0, 1.0, 0.0, 1.5) == 1000


# --- scenario annotation ------------------------------------------------------------------


def test_the_scenario_annotation_states_usage_and_its_age():
    usage = read_node_usage({"volcano.sh/sim-node-usage": "cpu=81,mem=60%,age=6m"}, T0, "n")

    assert usage.metrics_time == T0 - timedelta(minutes=6)
    assert (usage.cpu_usage_avg[NODE_METRICS_PERIOD], usage.mem_usage_avg["10m"]) == (81, 60)
    assert read_node_usage({}, T0, "n").metrics_time is None


@pytest.mark.parametrize("text", ["cpu=lots", "cpu=120", "gpu=5", "cpu=5,age=soon", "cpu"])
def test_a_malformed_scenario_annotation_names_it(text: str) -> None:
    with pytest.raises(ManifestError) as refused:
        read_node_usage({"volcano.sh/sim-node-usage": text}, T0, "objects[0] (Node n1)")

    assert (
        refused.value.field == "objects[0] (Node n1).metadata.annotations.volcano.sh/sim-node-usage"
    )


def test_pod_limits_follow_volcanos_sum_of_containers_and_init_containers() -> None:
    def container(cpu: str, **extra: object) -> dict[str, object]:
        return {"name": "c", "resources": {"limits": {"cpu": cpu}}, **extra}

    spec = {
        "containers": [container("1"), container("2"), {"name": "free"}],
        "initContainers": [container("4"), container("500m", restartPolicy="Always")],
        "overhead": {"cpu": "100m", "memory": "64Mi"},
    }

    limits = pod_limits(spec, "spec")

    # Containers 1 + 2 = 3; the 4-core init container raises it to 4; the sidecar adds 500m;
    # overhead adds 100m to cpu only, memory being unlimited.
    assert (limits.get("cpu"), limits.get("memory")) == (4600, 0)
