"""Shuffle action: evicts what the victim hooks return (Volcano's shuffle_test.go)."""

from __future__ import annotations

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
