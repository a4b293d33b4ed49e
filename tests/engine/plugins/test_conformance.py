"""Conformance plugin: critical system pods are never victims."""

from __future__ import annotations

from scheduler.engine.api.types import PodGroupPhase, TaskStatus
from scheduler.engine.framework import open_session
from tests.engine.builders import build_cluster, build_node, build_pod, build_pod_group, conf, gang


def test_kube_system_and_critical_class_pods_are_never_victims():
    system = build_pod("dns-0", namespace="kube-system", status=TaskStatus.RUNNING, node="n1")
    critical = build_pod("agent-0", status=TaskStatus.RUNNING, node="n1")
    critical.priority_class_name = "system-node-critical"
    normal = build_pod("web-0", status=TaskStatus.RUNNING, node="n1")
    jobs = [
        build_pod_group("dns", [system], namespace="kube-system", phase=PodGroupPhase.RUNNING),
        build_pod_group("agent", [critical], phase=PodGroupPhase.RUNNING),
        build_pod_group("web", [normal], phase=PodGroupPhase.RUNNING),
        gang("new", 1),
    ]
    ssn = open_session(build_cluster([build_node("n1")], jobs), conf("allocate", ("conformance",)))
    preemptor = next(iter(jobs[-1].tasks.values()))
    candidates = [system, critical, normal]
    assert ssn.preemptable(preemptor, candidates) == [normal]
    assert ssn.reclaimable(preemptor, candidates) == [normal]
