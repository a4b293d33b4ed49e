"""resource-strategy-fit plugin: strategy score, pod annotations, SRA, proportional filter.

Cases from Volcano's resource_strategy_fit_test.go, sra_test.go and proportional_test.go.
"""

from __future__ import annotations

import numpy as np
import pytest

from apis.errors import ConfError
from scheduler.engine.api.node_info import NodeInfo
from scheduler.engine.api.task_info import TaskInfo, TaskTemplate
from scheduler.engine.api.types import FitCode, TaskStatus
from scheduler.engine.conf import load_conf
from scheduler.engine.framework import Session, open_session
from scheduler.engine.plugins.resource_strategy_fit import SCORING_TYPE_KEY, SCORING_WEIGHT_KEY
from scheduler.engine.plugins.resource_strategy_fit_conf import (
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    ResourceStrategy,
    find_strategy,
    read_resources,
)
from tests.engine.builders import T0, build_cluster, build_pod_group, res

GPU, FOO, T4, A10 = "nvidia.com/gpu", "example.com/foo", "nvidia.com/t4", "nvidia.com/a10"


def _node(name: str, cpu: str, memory: str) -> NodeInfo:
    return NodeInfo(name=name, allocatable=res(cpu=cpu, memory=memory, pods=10))


def _pod(
    name: str,
    cpu: str,
    memory: str,
    extra: dict[str, str] | None = None,
    *,
    node: str = "",
    annotations: dict[str, str] | None = None,
) -> TaskInfo:
    return TaskInfo(
        name=name,
        namespace="c1",
        job="",
        resreq=res(extra or {}, cpu=cpu, memory=memory, pods=1),
        status=TaskStatus.RUNNING if node else TaskStatus.PENDING,
        node_name=node,
        creation_timestamp=T0,
        annotations=annotations or {},
        template=TaskTemplate(namespace="c1"),
    )


def _session(nodes: list[NodeInfo], pods: list[TaskInfo], arguments: str) -> Session:
    job = build_pod_group("pg1", pods, namespace="c1")
    text = (
        'actions: "allocate"\ntiers:\n- plugins:\n  - name: resource-strategy-fit\n'
        f"    arguments: {arguments}\n"
    )
    return open_session(build_cluster(nodes, [job]), load_conf(text))


def _scores(ssn: Session) -> dict[str, dict[str, float]]:
    return {
        task.name: {n: round(ssn.node_order_fn(task, node), 6) for n, node in ssn.nodes.items()}
        for task in ssn.jobs["c1/pg1"].tasks.values()
        if task.status == TaskStatus.PENDING
    }


# --- arguments (Test_calculateWeight, Test_findResourceConfigWithPrefix) -----------------------
LEAST_1 = ResourceStrategy(LEAST_ALLOCATED, 1)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ('{"cpu": {"type": "MostAllocated", "weight": 1}, "memory": {"type": "LeastAllocated", '
         '"weight": 2}}',
         {"cpu": ResourceStrategy(MOST_ALLOCATED, 1), "memory": ResourceStrategy(LEAST_ALLOCATED, 2)}),
        ("", {"cpu": LEAST_1, "memory": LEAST_1}),
        ("{}", {"cpu": LEAST_1, "memory": LEAST_1}),
        ('{"cpu": {"type": "LeastAllocated", "weight": 1}, "*": {"type": "MostAllocated"}}',
         {"cpu": LEAST_1}),
        ('{"nvidia.com/gpu/*": {"type": "MostAllocated", "weight": 3}, "cloudml.gpu**": {}}',
         {"nvidia.com/gpu/*": ResourceStrategy(MOST_ALLOCATED, 3)}),
        ('{"memory": {"type": "LeastAllocated", "weight": 1}, "cloudml.*.gpu": {}, '
         '"*.com/gpu": {}}', {"memory": LEAST_1}),
        ('{"cpu": {"type": "Balanced", "weight": -4}}', {"cpu": LEAST_1}),
    ],
)  # fmt: skip
def test_resources_fall_back_as_volcano(given: str, expected: dict[str, ResourceStrategy]) -> None:
    assert read_resources(given) == expected


def test_exact_name_wins_then_the_longest_prefix() -> None:
    configured = {
        "nvidia.com/gpu": ResourceStrategy(MOST_ALLOCATED, 3),
        "nvidia.com/*": ResourceStrategy(LEAST_ALLOCATED, 2),
        "nvidia.*": ResourceStrategy(MOST_ALLOCATED, 1),
    }
    assert find_strategy("nvidia.com/gpu", configured) == configured["nvidia.com/gpu"]
    assert find_strategy("nvidia.com/t4", configured) == configured["nvidia.com/*"]
    assert find_strategy("nvidia.io/x", configured) == configured["nvidia.*"]
    assert find_strategy("amd.com/gpu", configured) is None


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ("{resources: {cpu: {weight: heavy}}}", "arguments.resources.cpu.weight"),
        ("{resources: {cpu: {kind: x}}}", "arguments.resources.cpu.kind"),
        ("{resources: [cpu]}", "arguments.resources"),
        ("{sra: {weight: x}}", "arguments.sra.weight"),
        ("{sra: {resourceWeight: {nvidia.com/t4: 1.5}}}", "arguments.sra.resourceWeight.nvidia"),
        ("{proportional: {resourceProportion: {a.cpu: x}}}", "proportional.resourceProportion.a"),
        ("{proportional: {enabled: true}}", "arguments.proportional.enabled"),
    ],
)
def test_bad_arguments_name_the_field(arguments: str, field: str) -> None:
    text = (
        'actions: "allocate"\ntiers:\n- plugins:\n  - name: resource-strategy-fit\n'
        f"    arguments: {arguments}\n"
    )
    with pytest.raises(ConfError, match=field.replace(".", r"\.")):
        load_conf(text)


# --- the strategy score (TestScore) ------------------------------------------------------------
LEAST = "{resources: {cpu: {type: LeastAllocated, weight: %d}, memory: {type: LeastAllocated, weight: %d}}, resourceStrategyFitWeight: %d}"
MOST = "{resources: {cpu: {type: MostAllocated, weight: %d}, memory: {type: MostAllocated, weight: %d}}, resourceStrategyFitWeight: %d}"
MIXED = "{resources: {cpu: {type: %s, weight: %d}, memory: {type: %s, weight: %d}}, resourceStrategyFitWeight: 10}"


@pytest.mark.parametrize(
    ("cpu", "memory", "alloc", "used", "arguments", "annotations", "score"),
    [
        ("100m", "100", "500", "200", LEAST % (1, 1, 10), {}, 400),
        ("100m", "100", "400", "200", LEAST % (1, 1, 10), {}, 250),
        ("100m", "100", "500", "200", MOST % (1, 1, 10), {}, 600),
        ("100m", "100", "400", "200", MOST % (1, 1, 10), {}, 750),
        ("100m", "100", "500", "200", MIXED % ("LeastAllocated", 2, "MostAllocated", 1), {},
         466.666667),
        ("100m", "100", "500", "200", MIXED % ("LeastAllocated", 1, "MostAllocated", 2), {},
         533.333333),
        ("0", "100", "500", "200", MIXED % ("LeastAllocated", 1, "MostAllocated", 2), {}, 600),
        ("100m", "100", "500", "200", "{resources: {memory: {type: MostAllocated, weight: 2}}}",
         {}, 600),
        ("100m", "100", "500", "200", LEAST % (1, 1, 10),
         {SCORING_TYPE_KEY: "LeastAllocated", SCORING_WEIGHT_KEY: '{"cpu": 2, "memory": 1}'}, 400),
        ("100m", "100", "500", "200", LEAST % (1, 1, 10),
         {SCORING_TYPE_KEY: "MostAllocated", SCORING_WEIGHT_KEY: '{"cpu": 1, "memory": 2}'}, 600),
        ("100m", "100", "500", "200", LEAST % (1, 1, 10),
         {SCORING_TYPE_KEY: "LeastAllocated", SCORING_WEIGHT_KEY: "invalid-json"}, 0),
        ("100m", "100", "500", "200", LEAST % (1, 1, 10),
         {SCORING_TYPE_KEY: "LeastAllocated", SCORING_WEIGHT_KEY: '{"cpu": 2}'}, 400),
        ("100m", "100", "500", "200", LEAST % (1, 1, 10), {SCORING_TYPE_KEY: "MostAllocated"}, 0),
        ("100m", "100", "500", "200", LEAST % (1, 1, 10),
         {SCORING_TYPE_KEY: "MostAllocated", SCORING_WEIGHT_KEY: '{"cpu": 1.5}'}, 0),
        ("100m", "100", "500", "200", LEAST % (1, 1, 10),
         {SCORING_TYPE_KEY: "Balanced", SCORING_WEIGHT_KEY: '{"cpu": 1, "memory": 1}'}, 0),
        ("0", "0", "500", "200", LEAST % (1, 1, 10), {}, 0),
        ("100m", "100", "500", "500", LEAST % (1, 1, 10), {}, 0),
        ("100m", "100", "500", "200", MIXED % ("LeastAllocated", 3, "MostAllocated", 1), {}, 450),
        ("100m", "100", "500", "200", LEAST % (5, 5, 20), {}, 800),
        ("100m", "100", "500", "200", "{resourceStrategyFitWeight: -3}", {}, 400),
    ],
)  # fmt: skip
def test_strategy_score(
    cpu: str,
    memory: str,
    alloc: str,
    used: str,
    arguments: str,
    annotations: dict[str, str],
    score: float,
) -> None:
    node = _node("n1", cpu=f"{alloc}m", memory=alloc)
    holder = _pod("holder", f"{used}m", used, node="n1")
    pending = _pod("p1", cpu, memory, annotations=annotations)
    ssn = _session([node], [holder, pending], arguments)

    assert _scores(ssn)["p1"]["n1"] == pytest.approx(score, abs=1e-6)


def test_zero_cpu_allocatable_counts_its_weight() -> None:
    node = NodeInfo(name="n1", allocatable=res(memory="400", pods=10))
    holder = _pod("holder", "0", "200", node="n1")
    pending = _pod("p1", "100m", "100")
    ssn = _session([node], [holder, pending], MIXED % ("LeastAllocated", 1, "MostAllocated", 2))

    assert _scores(ssn)["p1"]["n1"] == pytest.approx(500)


def _extended_nodes() -> list[NodeInfo]:
    return [
        NodeInfo(name="n1", allocatable=res({GPU: "10"}, cpu="4", memory="4Gi", pods=10)),
        NodeInfo(name="n2", allocatable=res({GPU: "5"}, cpu="4", memory="4Gi", pods=10)),
        NodeInfo(name="n3", allocatable=res({FOO: "10"}, cpu="4", memory="4Gi", pods=10)),
        NodeInfo(name="n4", allocatable=res({FOO: "5"}, cpu="4", memory="4Gi", pods=10)),
    ]


def test_extended_resources_most_and_least_allocated() -> None:
    pods = [
        _pod("p1", "1", "1Gi", {FOO: "2"}),
        _pod("p2", "1", "1Gi", {FOO: "3"}),
        _pod("p3", "1", "10Gi", {GPU: "2"}),
        _pod("p4", "1", "1Gi", {GPU: "3"}),
    ]
    arguments = (
        "{resourceStrategyFitWeight: 10, resources: {nvidia.com/gpu: {type: MostAllocated, "
        "weight: 1}, example.com/foo: {type: LeastAllocated, weight: 1}}}"
    )
    ssn = _session(_extended_nodes(), pods, arguments)

    assert _scores(ssn) == {
        "p1": {"n1": 0, "n2": 0, "n3": 800, "n4": 600},
        "p2": {"n1": 0, "n2": 0, "n3": 700, "n4": 400},
        "p3": {"n1": 200, "n2": 400, "n3": 0, "n4": 0},
        "p4": {"n1": 300, "n2": 600, "n3": 0, "n4": 0},
    }


def test_missing_resource_counts_its_weight() -> None:
    nodes = [
        NodeInfo(name="n5", allocatable=res({GPU: "10", FOO: "5"}, cpu="4", memory="4Gi", pods=10)),
        NodeInfo(name="n6", allocatable=res({FOO: "10"}, cpu="4", memory="4Gi", pods=10)),
    ]
    arguments = (
        "{resourceStrategyFitWeight: 10, resources: {nvidia.com/gpu: {type: MostAllocated, "
        "weight: 1}, example.com/foo: {type: LeastAllocated, weight: 2}}}"
    )
    ssn = _session(nodes, [_pod("p5", "1", "1Gi", {GPU: "4", FOO: "4"})], arguments)

    assert _scores(ssn)["p5"] == pytest.approx({"n5": 266.666667, "n6": 400})


def test_wildcard_resources_score_by_prefix() -> None:
    arguments = "{resources: {nvidia.com/*: {type: MostAllocated, weight: 1}}}"
    ssn = _session(_extended_nodes(), [_pod("p3", "1", "1Gi", {GPU: "2"})], arguments)

    assert _scores(ssn)["p3"] == {"n1": 200, "n2": 400, "n3": 0, "n4": 0}


# --- SRA (sra_test.go TestNode) ----------------------------------------------------------------
def _sra_nodes() -> list[NodeInfo]:
    return [
        NodeInfo(name="n1", allocatable=res(cpu="32", memory="64Gi", pods=10)),
        NodeInfo(name="n2", allocatable=res({T4: "16"}, cpu="8", memory="16Gi", pods=10)),
        NodeInfo(name="n3", allocatable=res({A10: "16"}, cpu="8", memory="16Gi", pods=10)),
        NodeInfo(name="n4", allocatable=res({T4: "8", A10: "16"}, cpu="8", memory="16Gi", pods=10)),
    ]


def _sra_pods() -> list[TaskInfo]:
    return [
        _pod("p1", "1", "1Gi"),
        _pod("p2", "1.5", "0", {T4: "2"}),
        _pod("p3", "2", "4Gi", {A10: "2"}),
        _pod("p4", "3", "4Gi", {T4: "1", A10: "3"}),
    ]


FIT_T4 = "resources: {nvidia.com/t4: {type: MostAllocated, weight: 3}, cpu: {type: LeastAllocated, weight: 1}}"


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ("{resourceStrategyFitWeight: 0, sra: {enable: true, resources: 'nvidia.com/t4, "
         "nvidia.com/a10', weight: 5, resourceWeight: {nvidia.com/t4: 2, nvidia.com/a10: 3}}}",
         {"p1": [500, 300, 200, 0], "p2": [0, 300, 0, 0], "p3": [0, 0, 200, 0],
          "p4": [0, 0, 0, 0]}),
        ("{resourceStrategyFitWeight: 0, sra: {enable: true, resources: nvidia.com/t4, weight: 5, "
         "resourceWeight: {nvidia.com/t4: 2}}}",
         {"p1": [500, 0, 500, 0], "p2": [0, 0, 0, 0], "p3": [0, 0, 500, 0], "p4": [0, 0, 0, 0]}),
        ("{resourceStrategyFitWeight: 8, " + FIT_T4 + ", sra: {enable: true, resources: "
         "nvidia.com/t4, weight: 0, resourceWeight: {nvidia.com/t4: 2}}}",
         {"p1": [775, 700, 700, 700], "p2": [190.625, 237.5, 162.5, 312.5],
          "p3": [750, 600, 600, 600], "p4": [181.25, 162.5, 125, 200]}),
        ("{resourceStrategyFitWeight: 8, " + FIT_T4 + ", sra: {enable: true, resources: "
         "nvidia.com/t4, weight: 5, resourceWeight: {nvidia.com/t4: 2}}}",
         {"p1": [1275, 700, 1200, 700], "p2": [190.625, 237.5, 162.5, 312.5],
          "p3": [750, 600, 1100, 600], "p4": [181.25, 162.5, 125, 200]}),
        ("{resourceStrategyFitWeight: 0, sra: {enable: false, resources: nvidia.com/t4, "
         "weight: 5}}",
         {"p1": [0, 0, 0, 0], "p2": [0, 0, 0, 0], "p3": [0, 0, 0, 0], "p4": [0, 0, 0, 0]}),
    ],
)  # fmt: skip
def test_sra_scores(arguments: str, expected: dict[str, list[float]]) -> None:
    ssn = _session(_sra_nodes(), _sra_pods(), arguments)

    got = _scores(ssn)
    assert {p: [got[p][f"n{i}"] for i in range(1, 5)] for p in got} == expected


def test_no_hooks_when_every_part_is_off() -> None:
    ssn = _session(_sra_nodes(), _sra_pods(), "{resourceStrategyFitWeight: 0}")

    assert not ssn.has_fns("batch_node_order")
    assert not ssn.has_fns("batch_predicate")


# --- proportional (proportional_test.go) ------------------------------------------------------
PROPORTIONAL = (
    "{proportional: {enable: true, resources: nvidia.com/gpu, resourceProportion: "
    "{nvidia.com/gpu.cpu: 4, nvidia.com/gpu.memory: 4}}}"
)


@pytest.mark.parametrize(
    ("node", "pod", "fits"),
    [
        (("30", "30G", "6"), ("4", "4G", None), True),
        (("30", "30G", "6"), ("10", "10G", None), False),
        (("30", "30G", "6"), ("10", "10G", "1"), True),
        (("26", "26G", "2"), ("10", "10G", None), True),
        (("30", "30G", "6"), ("6", "6G", None), True),
        (("30", "30G", "6"), ("6", "6001M", None), False),
    ],
)
def test_proportional_filter(
    node: tuple[str, str, str], pod: tuple[str, str, str | None], fits: bool
) -> None:
    cpu, memory, gpu = node
    host = NodeInfo(name="n1", allocatable=res({GPU: gpu}, cpu=cpu, memory=memory, pods=10))
    extra = {GPU: pod[2]} if pod[2] else {}
    ssn = _session([host], [_pod("t1", pod[0], pod[1], extra)], PROPORTIONAL)
    task = ssn.jobs["c1/pg1"].tasks["c1/t1"]

    refused = ssn.predicate_fn(task, ssn.nodes["n1"])
    assert (refused is None) == fits
    if refused is not None:
        assert refused.reason == "proportional of resource nvidia.com/gpu check failed"
        assert refused.code == FitCode.UNSCHEDULABLE_AND_UNRESOLVABLE


def test_proportional_ignores_nodes_without_the_resource() -> None:
    host = NodeInfo(name="n1", allocatable=res(cpu="8", memory="8G", pods=10))
    other = NodeInfo(name="n2", allocatable=res({GPU: "1"}, cpu="8", memory="8G", pods=10))
    ssn = _session([host, other], [_pod("t1", "6", "6G")], PROPORTIONAL)
    task = ssn.jobs["c1/pg1"].tasks["c1/t1"]

    assert ssn.predicate_fn(task, ssn.nodes["n1"]) is None
    assert ssn.predicate_fn(task, ssn.nodes["n2"]) is not None


def test_one_row_forms_answer_as_the_batch_forms() -> None:
    arguments = (
        "{resourceStrategyFitWeight: 8, " + FIT_T4 + ", sra: {enable: true, resources: "
        "'nvidia.com/t4, nvidia.com/a10', weight: 5}, proportional: {enable: true, "
        "resources: nvidia.com/t4}}"
    )
    pods = [*_sra_pods(), _pod("p5", "1", "1Gi", annotations={SCORING_TYPE_KEY: "MostAllocated",
                                                               SCORING_WEIGHT_KEY: '{"cpu": 2}'})]  # fmt: skip
    ssn = _session(_sra_nodes(), pods, arguments)
    plugin = ssn.plugins["resource-strategy-fit"]
    rows = np.arange(len(ssn.node_list), dtype=np.int64)

    for task in ssn.jobs["c1/pg1"].tasks.values():
        scores = plugin.score(task, rows).tolist()  # type: ignore[attr-defined]
        mask = plugin._batch_predicate(task, rows).tolist()  # type: ignore[attr-defined]
        for row in rows.tolist():
            assert plugin._row_score(task, row) == scores[row]  # type: ignore[attr-defined]
            assert plugin._row_predicate(task, row) == mask[row]  # type: ignore[attr-defined]
