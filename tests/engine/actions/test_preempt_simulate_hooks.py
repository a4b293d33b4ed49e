"""Topology-aware preemption sees an evicted victim's anti-affinity only through simulate hooks.

Volcano keeps the inter-pod affinity state of a preemptor in its cycle state; in the
topology-aware mode only the predicates plugin's SimulateRemoveTask/SimulateAddTask hooks update
it, and the session calls them only when predicates has ``enablePreemptable`` or
``enabledAllocatable`` (both default to true once a conf is parsed).
"""

from __future__ import annotations

from typing import Any

from scheduler.engine.api.task_info import TaskTemplate
from scheduler.engine.api.types import PodGroupPhase, TaskStatus
from scheduler.engine.conf import load_conf
from scheduler.engine.framework import run_session
from tests.engine.builders import build_cluster, build_node, build_pod, build_pod_group

HOST = "kubernetes.io/hostname"


def conf(*, predicates_flags: str = "", topology_aware: bool = True) -> str:
    return f"""\
actions: "preempt"
tiers:
- plugins:
  - name: priority
  - name: conformance
  - name: predicates
{predicates_flags}configurations:
- name: preempt
  arguments:
    enableTopologyAwarePreemption: {str(topology_aware).lower()}
"""


def anti_affinity_to(labels: dict[str, str]) -> dict[str, Any]:
    term = {"labelSelector": {"matchLabels": labels}, "topologyKey": HOST}
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


def evictions(conf_text: str) -> list[str]:
    """Run one preempt session: a low-priority ``app: noisy`` pod holds half of n1; the
    high-priority preemptor fits beside it by CPU but refuses to share a host with it."""
    noisy = build_pod("noisy-task-0", status=TaskStatus.RUNNING, node="n1")
    noisy.template = TaskTemplate(namespace="ns", labels={"app": "noisy"})
    preemptor = build_pod("high-task-0")
    preemptor.template = TaskTemplate(namespace="ns", affinity=anti_affinity_to({"app": "noisy"}))
    jobs = [
        build_pod_group("noisy", [noisy], phase=PodGroupPhase.RUNNING, priority=0),
        build_pod_group("high", [preemptor], priority=1000, minutes=1),
    ]
    nodes = [build_node("n1", cpu="2", labels={HOST: "n1"})]
    decisions = run_session(build_cluster(nodes, jobs), load_conf(conf_text))
    return [e.task for e in decisions.evictions]


def test_simulated_eviction_clears_an_anti_affinity_conflict_by_default() -> None:
    assert evictions(conf()) == ["ns/noisy-task-0"]


def test_with_preemptable_and_allocatable_off_the_conflicting_victim_is_not_found() -> None:
    off = "    enablePreemptable: false\n    enabledAllocatable: false\n"
    assert evictions(conf(predicates_flags=off)) == []


def test_either_flag_alone_keeps_the_simulate_hooks() -> None:
    assert evictions(conf(predicates_flags="    enablePreemptable: false\n")) == ["ns/noisy-task-0"]
    assert evictions(conf(predicates_flags="    enabledAllocatable: false\n")) == [
        "ns/noisy-task-0"
    ]
