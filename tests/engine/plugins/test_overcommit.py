"""Overcommit plugin: admit PodGroups while cluster x factor - used holds their minResources."""

from __future__ import annotations

import pytest

from apis.errors import ConfError
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.types import PodGroupPhase, TaskStatus
from scheduler.engine.conf import load_conf
from scheduler.engine.framework import open_session, run_session
from scheduler.engine.plugins.overcommit import OvercommitPlugin
from tests.engine.builders import build_cluster, build_node, build_pod, build_pod_group, gang, res


def overcommit_conf(factor: object = None) -> str:
    arguments = "" if factor is None else f"\n    arguments:\n      overcommit-factor: {factor}"
    return f'actions: "enqueue"\ntiers:\n- plugins:\n  - name: overcommit{arguments}\n'


def pending(name: str, cpu: str, minutes: int = 0) -> JobInfo:
    return gang(name, 1, phase=PodGroupPhase.PENDING, min_resources=res(cpu=cpu), minutes=minutes)


@pytest.mark.parametrize(
    ("factor", "admitted"),
    [(None, ["ns/a"]), (2.0, ["ns/a", "ns/b"]), (0.5, ["ns/a"]), (1.0, ["ns/a"])],
    ids=["default 1.2", "2.0", "below 1 means 1.2", "exactly 1"],
)
def test_factor_decides_how_far_admission_runs_ahead(factor: object, admitted: list[str]) -> None:
    cluster = build_cluster([build_node("n1", cpu="4")], [pending("a", "2"), pending("b", "3", 1)])
    decisions = run_session(cluster, load_conf(overcommit_conf(factor)))
    assert decisions.enqueued == admitted


def test_default_factor_admits_up_to_120_percent():
    cluster = build_cluster([build_node("n1", cpu="4")], [pending("a", "4800m")])
    assert run_session(cluster, load_conf(overcommit_conf())).enqueued == ["ns/a"]
    cluster = build_cluster([build_node("n1", cpu="4")], [pending("a", "4801m")])
    assert run_session(cluster, load_conf(overcommit_conf())).enqueued == []


def test_used_resources_and_inqueue_jobs_reduce_the_room():
    running = build_pod_group(
        "old",
        [build_pod("old-task-0", cpu="2", status=TaskStatus.RUNNING, node="n1")],
        phase=PodGroupPhase.RUNNING,
    )
    admitted = gang("admitted", 1, phase=PodGroupPhase.INQUEUE, min_resources=res(cpu="2"))
    cluster = build_cluster([build_node("n1", cpu="4")], [running, admitted, pending("new", "1")])
    ssn = open_session(cluster, load_conf(overcommit_conf()))
    plugin = ssn.plugins["overcommit"]
    assert isinstance(plugin, OvercommitPlugin)
    cpu = ssn.resource_index.position["cpu"]
    assert plugin.idle[cpu] == pytest.approx(4800 - 2000)
    assert plugin.inqueue[cpu] == 2000
    assert not ssn.job_enqueueable(ssn.jobs["ns/new"])  # 2 + 1 > 2.8


def test_jobs_without_min_resources_are_always_admitted():
    job = gang("free", 1, phase=PodGroupPhase.PENDING)
    cluster = build_cluster([build_node("n1", cpu="1")], [job])
    ssn = open_session(cluster, load_conf(overcommit_conf()))
    assert ssn.job_enqueueable(job)


def test_factor_must_be_a_number():
    with pytest.raises(ConfError, match=r"arguments\.overcommit-factor: expected a number"):
        load_conf(overcommit_conf('"lots"'))
