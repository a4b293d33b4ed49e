"""Priority plugin: higher PriorityClass jobs and higher-priority pods go first."""

from __future__ import annotations

from scheduler.engine.framework import open_session, run_session
from tests.engine.builders import build_cluster, build_node, build_pod, build_pod_group, conf


def test_higher_priority_job_is_placed_before_an_older_default_one():
    old = build_pod_group("old", [build_pod("old-task-0", cpu="2")], minutes=0)
    vip = build_pod_group(
        "vip", [build_pod("vip-task-0", cpu="2", minutes=5)], minutes=5, priority=1000
    )
    decisions = run_session(
        build_cluster([build_node("n1", cpu="2")], [old, vip]), conf("allocate")
    )
    assert decisions.binds == {"ns/vip-task-0": "n1"}


def test_without_priority_plugin_creation_order_decides():
    old = build_pod_group("old", [build_pod("old-task-0", cpu="2")], minutes=0)
    vip = build_pod_group(
        "vip", [build_pod("vip-task-0", cpu="2", minutes=5)], minutes=5, priority=1000
    )
    decisions = run_session(
        build_cluster([build_node("n1", cpu="2")], [old, vip]), conf("allocate", ("gang",))
    )
    assert decisions.binds == {"ns/old-task-0": "n1"}


def test_task_order_puts_higher_pod_priority_first():
    low, high = build_pod("j-task-0", priority=1), build_pod("j-task-1", priority=9)
    job = build_pod_group("j", [low, high])
    ssn = open_session(build_cluster([build_node("n1")], [job]), conf("allocate"))
    assert ssn.task_order_fn(high, low)
    assert not ssn.task_order_fn(low, high)


def test_preemptable_only_lower_priority_jobs_or_lower_priority_tasks_of_the_same_job():
    preemptor = build_pod("vip-task-0", priority=5)
    vip = build_pod_group("vip", [preemptor, build_pod("vip-task-1", priority=1)], priority=100)
    low = build_pod_group("low", [build_pod("low-task-0", priority=50)], priority=1)
    peer = build_pod_group("peer", [build_pod("peer-task-0")], priority=100)
    cluster = build_cluster([build_node("n1")], [vip, low, peer])
    ssn = open_session(cluster, conf("allocate", ("priority",)))
    candidates = [*low.tasks.values(), *peer.tasks.values(), vip.tasks["ns/vip-task-1"]]
    assert [t.name for t in ssn.preemptable(preemptor, candidates)] == ["low-task-0", "vip-task-1"]


def test_job_is_starving_until_every_task_is_placed():
    job = build_pod_group("j", [build_pod("j-task-0"), build_pod("j-task-1")], min_member=1)
    ssn = open_session(build_cluster([build_node("n1")], [job]), conf("allocate", ("priority",)))
    assert ssn.job_starving(job)
    stmt = ssn.statement()
    for task in list(job.tasks.values()):
        stmt.allocate(task, ssn.nodes["n1"])
    assert not ssn.job_starving(job)
