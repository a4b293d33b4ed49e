"""Shuffle action: evicts what the victim hooks return (Volcano's shuffle_test.go)."""

from __future__ import annotations

from datetime import UTC, datetime

from scheduler.engine.actions.shuffle import ShuffleAction
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import PodGroupPhase, TaskStatus
from scheduler.engine.conf import load_conf
from scheduler.engine.framework import close_session, open_session
from tests.engine.builders import build_cluster, build_node, build_pod, build_pod_group

LOW, HIGH = 10, 100
_CONF = """
actions: "shuffle"
tiers:
- plugins:
  - name: pdb
    enabledVictim: true
"""


def test_select_pods_with_low_priority_and_evict_them() -> None:
    def running(name: str, node: str, priority: int) -> TaskInfo:
        return build_pod(name, namespace="test", status=TaskStatus.RUNNING, node=node,
                         priority=priority)  # fmt: skip

    groups = {
        "pg1": [running("pod1-1", "node1", LOW), running("pod1-2", "node1", HIGH),
                running("pod1-3", "node1", HIGH)],
        "pg2": [running("pod2-1", "node1", LOW), running("pod2-2", "node2", HIGH)],
        "pg3": [running("pod3-1", "node2", LOW), running("pod3-2", "node2", HIGH)],
    }  # fmt: skip
    jobs = [
        build_pod_group(name, pods, namespace="test", phase=PodGroupPhase.RUNNING)
        for name, pods in groups.items()
    ]
    nodes = [build_node("node1", pods=10), build_node("node2", pods=10)]
    ssn = open_session(build_cluster(nodes, jobs), load_conf(_CONF))
    offered: list[list[str]] = []

    def low_priority(candidates: list[TaskInfo]) -> list[TaskInfo]:
        offered.append(sorted(t.name for t in candidates))
        return [t for t in candidates if t.priority == LOW]

    ssn.add_victim_tasks_fn("pdb", low_priority)  # the test's fake plugin, in pdb's place
    ShuffleAction().execute(ssn)
    decisions = close_session(ssn)

    assert offered == [sorted(t.name for pods in groups.values() for t in pods)]
    assert sorted(e.task for e in decisions.evictions) == [
        "test/pod1-1",
        "test/pod2-1",
        "test/pod3-1",
    ]
    assert {e.reason for e in decisions.evictions} == {"shuffle"}
    assert ssn.jobs["test/pg1"].tasks["test/pod1-1"].status == TaskStatus.RELEASING


_TDM_CONF = """
actions: "shuffle"
tiers:
- plugins:
  - name: tdm
    arguments:
      tdm.revocable-zone.rz1: 0:00-0:01
      tdm.evict.period: 10m
"""


def test_each_eviction_names_the_plugin_whose_hook_chose_it() -> None:
    """A closed revocable zone's pods are evicted by shuffle as tdm named them: the decision
    says ``shuffle (tdm)``, so the pod's page and its event can say who chose it."""
    noon = datetime(2024, 1, 1, 12, 0, tzinfo=UTC)
    pods = [build_pod(f"spot-{i}", status=TaskStatus.RUNNING, node="n1", minutes=i)
            for i in range(2)]  # fmt: skip
    job = build_pod_group("spot", pods, phase=PodGroupPhase.RUNNING)
    job.annotations = {"volcano.sh/jdb-max-unavailable": "100%"}
    nodes = [build_node("n1", labels={"volcano.sh/revocable-zone": "rz1"})]
    ssn = open_session(build_cluster(nodes, [job], now=noon), load_conf(_TDM_CONF))
    ShuffleAction().execute(ssn)
    decisions = close_session(ssn)

    assert len(decisions.evictions) == 2
    assert {(e.reason, e.plugin, e.chosen_by) for e in decisions.evictions} == {
        ("shuffle", "tdm", "shuffle (tdm)")
    }


def test_a_victim_named_by_two_plugins_is_credited_to_the_first_in_conf_order() -> None:
    pods = [build_pod(f"p{i}", namespace="test", status=TaskStatus.RUNNING, node="n1")
            for i in range(2)]  # fmt: skip
    job = build_pod_group("pg", pods, namespace="test", phase=PodGroupPhase.RUNNING)
    conf = load_conf(_CONF.replace("    enabledVictim: true\n",
                                   "    enabledVictim: true\n  - name: tdm\n"))  # fmt: skip
    ssn = open_session(build_cluster([build_node("n1", pods=10)], [job]), conf)
    ssn.add_victim_tasks_fn("pdb", lambda tasks: [t for t in tasks if t.name == "p0"])
    ssn.add_victim_tasks_fn("tdm", lambda tasks: list(tasks))
    ShuffleAction().execute(ssn)
    decisions = close_session(ssn)

    assert sorted((e.task, e.chosen_by) for e in decisions.evictions) == [
        ("test/p0", "shuffle (pdb)"),
        ("test/p1", "shuffle (tdm)"),
    ]
