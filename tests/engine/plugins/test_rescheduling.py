"""rescheduling plugin: arguments, the interval across sessions, lowNodeUtilization's victims.

Volcano has no unit tests for this plugin; these follow its code (rescheduling.go,
low_node_utilization.go, node_utilization_util.go, rescheduling_util.go).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from apis.errors import ConfError
from scheduler.engine.api.node_info import NodeInfo, NodeUsage
from scheduler.engine.api.types import PodGroupPhase, TaskStatus
from scheduler.engine.conf import load_conf
from scheduler.engine.framework import Session, open_session
from scheduler.engine.framework.memory import PluginMemory
from scheduler.engine.plugins.rescheduling_conf import (
    LowNodeUtilizationConf,
    parse_interval,
    read_strategies,
)
from scheduler.engine.plugins.rescheduling_lnu import (
    BEST_EFFORT,
    BURSTABLE,
    GUARANTEED,
    low_node_utilization_victims,
    qos_rank,
)
from tests.engine.builders import build_cluster, build_node, build_pod, build_pod_group, res

NOON = datetime(2024, 1, 1, 12, 0, tzinfo=UTC)
STRATEGIES = """
      strategies:
      - name: lowNodeUtilization
        params:
          thresholds: {cpu: 20, memory: 20}
          targetThresholds: {cpu: 50, memory: 50}
"""


def _conf(arguments: str, *, victim: bool = True) -> str:
    flag = "" if victim else "\n    enabledVictim: false"
    return f"""
actions: "shuffle"
tiers:
- plugins:
  - name: rescheduling{flag}
    arguments:
{arguments}"""


def _usage(cpu: float, mem: float, period: str = "10m") -> NodeUsage:
    return NodeUsage(metrics_time=NOON, cpu_usage_avg={period: cpu}, mem_usage_avg={period: mem})


def _session(conf: str, *, now: datetime = NOON, memory: PluginMemory | None = None) -> Session:
    busy = build_node("busy", cpu="8", memory="16Gi")
    busy.resource_usage = _usage(80, 80)
    idle = build_node("idle", cpu="8", memory="16Gi")
    idle.resource_usage = _usage(10, 10)
    pods = [
        build_pod(f"p{i}", status=TaskStatus.RUNNING, node="busy", priority=i) for i in range(6)
    ]
    job = build_pod_group("job", pods, phase=PodGroupPhase.RUNNING)
    cluster = build_cluster([busy, idle], [job], now=now)
    return open_session(cluster, load_conf(conf), memory=memory)


def _victims(ssn: Session) -> list[str]:
    running = [t for j in ssn.jobs.values() for t in j.tasks.values()]
    return sorted(t.name for t in ssn.victim_tasks(running))


RUN_NOW = "      interval: 0s\n      metricsPeriod: 10m" + STRATEGIES


def test_low_node_utilization_sheds_lowest_priority_until_under_target() -> None:
    # 1 cpu / 1Gi of a 8 cpu / 16Gi node: 12.5% cpu, 6.25% memory; memory falls under 50%
    # only with the fifth victim (48.75%).
    assert _victims(_session(_conf(RUN_NOW))) == ["p0", "p1", "p2", "p3", "p4"]


def test_victim_hook_flag_off_registers_nothing_shuffle_asks() -> None:
    assert _victims(_session(_conf(RUN_NOW, victim=False))) == []


def test_interval_is_kept_across_sessions_from_the_first_one() -> None:
    memory = PluginMemory()
    conf = _conf("      interval: 10m\n      metricsPeriod: 10m" + STRATEGIES)

    # The first session is the scheduler's start: one interval must pass first.
    assert _victims(_session(conf, memory=memory)) == []
    assert _victims(_session(conf, now=NOON + timedelta(minutes=10), memory=memory)) == []
    later = NOON + timedelta(minutes=10, seconds=1)
    assert len(_victims(_session(conf, now=later, memory=memory))) == 5
    # It ran: the next chance is one interval after that run.
    assert _victims(_session(conf, now=later + timedelta(minutes=5), memory=memory)) == []
    assert len(_victims(_session(conf, now=later + timedelta(minutes=11), memory=memory))) == 5


def test_a_plugin_added_later_counts_the_interval_from_the_schedulers_start() -> None:
    memory = PluginMemory()
    conf = _conf("      interval: 10m\n      metricsPeriod: 10m" + STRATEGIES)
    without = 'actions: "shuffle"\ntiers:\n- plugins:\n  - name: priority\n'
    _session(without, memory=memory)  # the scheduler starts without the plugin

    assert len(_victims(_session(conf, now=NOON + timedelta(minutes=11), memory=memory))) == 5
    assert memory.started == NOON


def test_without_interval_the_default_is_five_minutes() -> None:
    memory = PluginMemory()
    conf = _conf("      metricsPeriod: 10m" + STRATEGIES)

    assert _victims(_session(conf, memory=memory)) == []
    assert _victims(_session(conf, now=NOON + timedelta(minutes=4), memory=memory)) == []
    assert len(_victims(_session(conf, now=NOON + timedelta(minutes=6), memory=memory))) == 5


def test_metrics_period_given_once_is_kept_after_the_conf_drops_it() -> None:
    memory = PluginMemory()
    _session(_conf(RUN_NOW), memory=memory)

    # Volcano's package variable keeps 10m; a fresh scheduler reads its default 5m (no usage).
    without = _conf("      interval: 0s" + STRATEGIES)
    later = NOON + timedelta(minutes=1)
    assert len(_victims(_session(without, now=later, memory=memory))) == 5
    assert _victims(_session(without, now=later)) == []


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("5m", 300.0), ("0", 0.0), ("-1s", -1.0), ("", 300.0), ("300", 300.0), ("1x", 300.0),
     ("3000000h", 300.0)],
)  # fmt: skip
def test_unreadable_interval_is_five_minutes(text: str, seconds: float) -> None:
    assert parse_interval(text) == seconds


def test_thresholds_update_cpu_memory_and_pod_only() -> None:
    conf = LowNodeUtilizationConf.from_params(
        {"thresholds": {"cpu": 20, "pods": 30, "pod": 40, "gpu": 5}}
    )

    assert conf.thresholds == {"cpu": 20, "memory": 100, "pods": 100, "pod": 40}
    assert conf.target_thresholds == {"cpu": 100, "memory": 100, "pods": 100}


def test_empty_strategy_list_keeps_the_default() -> None:
    assert read_strategies("") is None
    assert read_strategies("[]") is None


@pytest.mark.parametrize(
    ("strategies", "field", "message"),
    [
        ("3", "strategies", "expected a list of strategies"),
        ("[lowNodeUtilization]", "strategies[0]", "expected a mapping with a name"),
        ("[{params: {}}]", "strategies[0].name", "expected a strategy name"),
        ("[{name: x, weight: 1}]", "strategies[0].weight", "unknown field"),
        ("[{name: lowNodeUtilization, params: 5}]", "strategies[0].params", "expected a mapping"),
        (
            "[{name: lowNodeUtilization, params: {thresholds: {cpu: 20.5}}}]",
            "strategies[0].params.thresholds.cpu",
            "expected an integer percent",
        ),
        (
            "[{name: lowNodeUtilization, params: {targetThresholds: [50]}}]",
            "strategies[0].params.targetThresholds",
            "expected a mapping of resource to percent",
        ),
        (
            "[{name: lowNodeUtilization, params: {threshold: {cpu: 1}}}]",
            "strategies[0].params.threshold",
            "unknown param of lowNodeUtilization",
        ),
        (
            "[{name: lowNodeUtilization, params: {nodeFit: 1}}]",
            "strategies[0].params.nodeFit",
            "expected bool",
        ),
    ],
)
def test_bad_strategies_name_the_inner_field(strategies: str, field: str, message: str) -> None:
    with pytest.raises(ConfError) as caught:
        load_conf(_conf(f"      strategies: {strategies}"))

    assert caught.value.field == f"tiers[0].plugins[0].arguments.{field}"
    assert message in str(caught.value)


def test_strategies_volcano_does_not_implement_are_accepted_and_select_nothing() -> None:
    conf = _conf(
        "      interval: 0s\n      metricsPeriod: 10m\n      strategies: [{name: offlineOnly}]"
    )

    assert _victims(_session(conf)) == []


def _node(name: str, cpu: float, mem: float, *, unschedulable: bool = False) -> NodeInfo:
    node = build_node(name, cpu="8", memory="16Gi")
    node.resource_usage = _usage(cpu, mem)
    node.unschedulable = unschedulable
    return node


def _lnu(nodes: list[NodeInfo], pods_on: dict[str, int]) -> list[str]:
    pods = [
        build_pod(f"{n}-{i}", status=TaskStatus.RUNNING, node=n, priority=i)
        for n, count in pods_on.items()
        for i in range(count)
    ]
    cluster = build_cluster(nodes, [build_pod_group("job", pods, phase=PodGroupPhase.RUNNING)])
    conf = LowNodeUtilizationConf.from_params(
        {"thresholds": {"cpu": 20, "memory": 20}, "targetThresholds": {"cpu": 50, "memory": 50}}
    )
    victims = low_node_utilization_victims(cluster.node_list, "10m", pods, conf)
    return [t.name for t in victims]


def test_grouping_needs_a_low_node_not_all_low_and_a_high_node() -> None:
    assert _lnu([_node("a", 80, 80), _node("b", 30, 30)], {"a": 2}) == []  # none low
    assert _lnu([_node("a", 10, 10), _node("b", 10, 10)], {"a": 2}) == []  # all low
    assert _lnu([_node("a", 45, 45), _node("b", 10, 10)], {"a": 2}) == []  # none high
    unschedulable = _node("b", 10, 10, unschedulable=True)
    assert _lnu([_node("a", 80, 80), unschedulable], {"a": 2}) == []  # not low when cordoned
    assert _lnu([_node("a", 60, 10), _node("b", 10, 10)], {"a": 2}) == ["a-0"]


def test_period_the_source_did_not_fill_reads_zero() -> None:
    nodes = [_node("a", 80, 80), _node("b", 10, 10)]
    pods = [build_pod("a-0", status=TaskStatus.RUNNING, node="a")]
    cluster = build_cluster(nodes, [build_pod_group("job", pods, phase=PodGroupPhase.RUNNING)])

    victims = low_node_utilization_victims(
        cluster.node_list, "5m", pods, LowNodeUtilizationConf.from_params({})
    )
    assert victims == []


def test_a_pod_is_matched_to_the_offered_tasks_by_name_alone() -> None:
    nodes = [_node("a", 80, 80), _node("b", 10, 10)]
    on_a = build_pod("web", namespace="one", status=TaskStatus.RUNNING, node="a")
    elsewhere = build_pod("web", namespace="two", status=TaskStatus.RUNNING, node="b")
    job_a = build_pod_group("a", [on_a], namespace="one", phase=PodGroupPhase.RUNNING)
    job_b = build_pod_group("b", [elsewhere], namespace="two", phase=PodGroupPhase.RUNNING)
    cluster = build_cluster(nodes, [job_a, job_b])
    conf = LowNodeUtilizationConf.from_params(
        {"thresholds": {"cpu": 20, "memory": 20}, "targetThresholds": {"cpu": 50, "memory": 50}}
    )

    victims = low_node_utilization_victims(cluster.node_list, "10m", [elsewhere, on_a], conf)
    assert [t.uid for t in victims] == ["two/web"]  # Volcano's first task of that pod name


def test_qos_classes_from_requests_and_limits() -> None:
    best = build_pod("be", best_effort=True)
    guaranteed = build_pod("g", cpu="1", memory="1Gi")
    guaranteed.limits = res(cpu="1", memory="1Gi")
    limits_only = build_pod("l", best_effort=True)
    limits_only.limits = res(cpu="1", memory="1Gi")
    burstable = build_pod("b", cpu="1", memory="1Gi")
    burstable.limits = res(cpu="2", memory="1Gi")

    assert qos_rank(best) == BEST_EFFORT
    assert qos_rank(guaranteed) == GUARANTEED
    assert qos_rank(limits_only) == GUARANTEED  # Kubernetes fills requests in from limits
    assert qos_rank(burstable) == BURSTABLE
    assert qos_rank(build_pod("no-limits")) == BURSTABLE
