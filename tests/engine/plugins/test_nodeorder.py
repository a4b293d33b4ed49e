"""Nodeorder plugin: which of the fitting nodes a pod prefers, scored as kube-scheduler scores."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from apis.errors import ConfError
from scheduler.engine.api.node_info import NodeInfo, Taint
from scheduler.engine.api.task_info import TaskInfo, TaskTemplate, Toleration
from scheduler.engine.api.types import TaskStatus
from scheduler.engine.conf import load_conf
from scheduler.engine.framework import Decisions, Session, open_session, run_session
from tests.engine.builders import build_cluster, build_node, build_pod, build_pod_group, res

SCORERS = (
    "leastrequested",
    "mostrequested",
    "balancedresource",
    "nodeaffinity",
    "tainttoleration",
    "podaffinity",
    "podtopologyspread",
    "imagelocality",
)


def nodeorder_conf(**weights: int) -> str:
    """Return a conf of predicates + nodeorder with only the given scorer weights non-zero."""
    args = ", ".join(f"{name}.weight: {weights.get(name, 0)}" for name in SCORERS)
    return (
        "actions: allocate\ntiers:\n- plugins:\n  - name: gang\n  - name: predicates\n"
        f"  - name: nodeorder\n    arguments: {{{args}}}\n"
    )


def pod(name: str, *, cpu: str = "1", memory: str = "1Gi", **template: Any) -> TaskInfo:
    task = build_pod(name, cpu=cpu, memory=memory)
    labels = template.pop("labels", {})
    task.template = TaskTemplate(namespace="ns", labels=labels, **template)
    return task


def running(name: str, node: str, **kwargs: Any) -> TaskInfo:
    task = pod(name, **kwargs)
    task.status, task.node_name = TaskStatus.RUNNING, node
    return task


def session(nodes: list[NodeInfo], task: TaskInfo, others: list[TaskInfo], text: str) -> Session:
    jobs = [build_pod_group("job", [task])]
    jobs += [build_pod_group(f"o-{i}", [t]) for i, t in enumerate(others)]
    return open_session(build_cluster(nodes, jobs), load_conf(text))


def scores(nodes: list[NodeInfo], task: TaskInfo, others: list[TaskInfo], text: str) -> list[float]:
    ssn = session(nodes, task, others, text)
    return [float(x) for x in ssn.node_scores(task, np.arange(len(nodes), dtype=np.int64))]


def place(nodes: list[NodeInfo], task: TaskInfo, others: list[TaskInfo], text: str) -> Decisions:
    jobs = [build_pod_group("job", [task])]
    jobs += [build_pod_group(f"o-{i}", [t]) for i, t in enumerate(others)]
    return run_session(build_cluster(nodes, jobs), load_conf(text))


# --- resource scorers ---------------------------------------------------------------------------
def test_default_weights_spread_pods_onto_the_emptier_node():
    nodes = [build_node("n1"), build_node("n2")]
    busy = running("busy-0", "n1", cpu="2")
    decisions = place(
        nodes,
        pod("job-task-0"),
        [busy],
        "actions: allocate\ntiers:\n- plugins:\n  - name: predicates\n  - name: nodeorder\n",
    )
    assert decisions.binds == {"ns/job-task-0": "n2"}


@pytest.mark.parametrize(
    ("scorer", "expected"),
    [
        # 4 CPU / 8Gi node, pod 1 CPU / 1Gi: cpu 75 and memory 87 free -> (75 + 87) // 2
        ("leastrequested", 81.0),
        # cpu 25 and memory 12 used -> (25 + 12) // 2
        ("mostrequested", 18.0),
        # fractions 0.25 and 0.125: std 0.0625 -> floor(93.75)
        ("balancedresource", 93.0),
    ],
)
def test_resource_scores_follow_kube_scheduler_formulas(scorer: str, expected: float) -> None:
    text = nodeorder_conf(**{scorer: 1})
    assert scores([build_node("n1")], pod("p-0"), [], text) == [expected]


def test_weight_multiplies_the_score():
    text = nodeorder_conf(leastrequested=3)
    assert scores([build_node("n1")], pod("p-0"), [], text) == [243.0]


def test_most_requested_packs_onto_the_busier_node():
    nodes = [build_node("n1"), build_node("n2")]
    busy = running("busy-0", "n2", cpu="2")
    decisions = place(nodes, pod("job-task-0"), [busy], nodeorder_conf(mostrequested=1))
    assert decisions.binds == {"ns/job-task-0": "n2"}


def test_pod_that_would_overflow_scores_zero_least_requested():
    nodes = [build_node("n1", cpu="1")]
    assert scores(nodes, pod("p-0", cpu="2"), [], nodeorder_conf(leastrequested=1)) == [43.0]
    # cpu overflows (0) and memory keeps 87: (0 + 87) // 2 = 43


def test_all_weights_zero_leaves_the_tie_to_the_first_node_by_name():
    nodes = [build_node("n1"), build_node("n2")]
    busy = running("busy-0", "n1", cpu="3")
    decisions = place(nodes, pod("job-task-0"), [busy], nodeorder_conf())
    assert decisions.binds == {"ns/job-task-0": "n1"}


# --- node-side preferences ----------------------------------------------------------------------------
def test_preferred_node_affinity_wins_over_a_less_busy_node():
    preferred = {
        "nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 10,
                    "preference": {
                        "matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]
                    },
                }
            ]
        }
    }
    nodes = [build_node("n1"), build_node("n2", labels={"disk": "ssd"})]
    busy = running("busy-0", "n2", cpu="2")
    text = nodeorder_conf(leastrequested=1, nodeaffinity=2)
    decisions = place(nodes, pod("job-task-0", affinity=preferred), [busy], text)
    assert decisions.binds == {"ns/job-task-0": "n2"}
    # normalised: the matching node 100 x 2, the other 0
    assert scores(nodes, pod("p-0", affinity=preferred), [], nodeorder_conf(nodeaffinity=2)) == [
        0.0,
        200.0,
    ]


def test_prefer_no_schedule_taint_is_avoided_unless_tolerated():
    nodes = [build_node("n1", taints=(Taint("spot", "yes", "PreferNoSchedule"),)), build_node("n2")]
    text = nodeorder_conf(tainttoleration=3)
    assert scores(nodes, pod("p-0"), [], text) == [0.0, 300.0]
    tolerant = pod("p-1", tolerations=(Toleration("spot", "Exists", "", "PreferNoSchedule"),))
    assert scores(nodes, tolerant, [], text) == [300.0, 300.0]


# --- pod-side preferences -------------------------------------------------------------------------
def _preferred(kind: str, app: str) -> dict[str, Any]:
    term = {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "zone"}
    return {
        kind: {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 5, "podAffinityTerm": term}
            ]
        }
    }


def _zones() -> list[NodeInfo]:
    return [build_node(f"n{i}", labels={"zone": z}) for i, z in enumerate("aabb")]


def test_preferred_pod_affinity_draws_the_pod_to_its_partners_zone():
    db = running("db-0", "n3", labels={"app": "db"})
    web = pod("job-task-0", affinity=_preferred("podAffinity", "db"))
    decisions = place(_zones(), web, [db], nodeorder_conf(leastrequested=1, podaffinity=2))
    assert decisions.binds["ns/job-task-0"] in ("n2", "n3")


def test_preferred_anti_affinity_pushes_the_pod_away():
    db = running("db-0", "n0", labels={"app": "db"})
    web = pod("p-0", affinity=_preferred("podAntiAffinity", "db"))
    assert scores(_zones(), web, [db], nodeorder_conf(podaffinity=1)) == [0.0, 0.0, 100.0, 100.0]


def test_schedule_anyway_spread_prefers_the_emptier_zone():
    spread = (
        {
            "maxSkew": 1,
            "topologyKey": "zone",
            "whenUnsatisfiable": "ScheduleAnyway",
            "labelSelector": {"matchLabels": {"app": "web"}},
        },
    )
    others = [running(f"w-{i}", "n0", labels={"app": "web"}) for i in range(2)]
    web = pod("p-0", labels={"app": "web"}, topology_spread_constraints=spread)
    result = scores(_zones(), web, others, nodeorder_conf(podtopologyspread=1))
    assert result[2] == result[3] > result[0] == result[1]


# --- arguments and consistency ------------------------------------------------------------------
def test_a_weight_must_be_an_integer():
    text = (
        "actions: allocate\ntiers:\n- plugins:\n  - name: nodeorder\n    arguments:\n"
        "      leastrequested.weight: ten\n"
    )
    with pytest.raises(ConfError) as err:
        load_conf(text)
    assert "tiers[0].plugins[0].arguments.leastrequested.weight" in str(err.value)


def test_one_row_refresh_agrees_with_the_full_vector():
    nodes = [
        NodeInfo(
            f"n{i}", res({"nvidia.com/gpu": "2"}, cpu=str(2 + i), memory=f"{4 + i}Gi", pods=110)
        )
        for i in range(5)
    ]
    others = [running("a-0", "n1", cpu="1"), running("b-0", "n3", cpu="2", memory="3Gi")]
    task = pod("p-0", cpu="500m", memory="512Mi")
    text = nodeorder_conf(leastrequested=1, mostrequested=2, balancedresource=3)
    ssn = session(nodes, task, others, text)
    full = ssn.node_scores(task, np.arange(5, dtype=np.int64)).tolist()
    singles = [float(ssn.node_scores(task, np.array([r], dtype=np.int64))[0]) for r in range(5)]
    assert full == singles


def test_cached_scores_follow_pods_placed_during_the_session():
    nodes = [build_node(f"n{i}", cpu="8", memory="16Gi") for i in range(4)]
    task = pod("p-0", cpu="1")
    movers = [pod(f"m-{i}", cpu="2", memory="3Gi") for i in range(3)]
    text = nodeorder_conf(leastrequested=1, balancedresource=1)
    ssn = session(nodes, task, movers, text)
    rows = np.arange(4, dtype=np.int64)
    ssn.node_scores(task, rows)  # fills the cache before anything moves
    stmt = ssn.statement()
    for mover, node in zip(movers, ("n1", "n1", "n3"), strict=True):
        stmt.allocate(mover, ssn.nodes[node])
    after = ssn.node_scores(task, rows).tolist()
    placed = [running(f"m-{i}", n, cpu="2", memory="3Gi") for i, n in enumerate(("n1", "n1", "n3"))]
    fresh = scores(
        [build_node(f"n{i}", cpu="8", memory="16Gi") for i in range(4)], pod("p-0"), placed, text
    )
    assert after == fresh
    assert after[0] > after[3] > after[1]
