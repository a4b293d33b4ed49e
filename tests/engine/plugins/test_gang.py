"""Gang plugin: at least minMember tasks or none, the victims it allows, and its conditions."""

from __future__ import annotations

from scheduler.engine.api.types import PodGroupPhase, TaskStatus
from scheduler.engine.framework import open_session, run_session
from tests.engine.builders import build_cluster, build_node, build_pod, build_pod_group, conf, gang


def test_gang_short_of_min_available_binds_nothing_and_says_how_many_are_missing():
    job = gang("train", 4)
    decisions = run_session(build_cluster([build_node("n1", cpu="3")], [job]), conf("allocate"))
    assert decisions.binds == {}
    message = decisions.unschedulable["ns/train"]
    assert message.startswith("4/4 tasks in gang unschedulable: pod group is not ready")
    assert "Insufficient cpu" in message
    assert (
        decisions.task_fit_errors["ns/train-task-3"]
        == "0/1 nodes are unavailable: 1 Insufficient cpu."
    )


def test_gang_at_min_available_binds_and_gets_scheduled_condition():
    job = gang("train", 3)
    decisions = run_session(build_cluster([build_node("n1", cpu="3")], [job]), conf("allocate"))
    assert len(decisions.binds) == 3
    assert "ns/train" not in decisions.unschedulable
    assert [c.type for c in decisions.pod_group_conditions["ns/train"]] == ["Scheduled"]


def test_gang_discard_leaves_room_for_the_next_job():
    big = gang("big", 3, minutes=0)
    small = gang("small", 2, minutes=1)
    decisions = run_session(
        build_cluster([build_node("n1", cpu="2")], [big, small]), conf("allocate")
    )
    assert sorted(decisions.binds) == ["ns/small-task-0", "ns/small-task-1"]


def test_victims_never_take_a_job_below_min_available():
    running = [build_pod(f"r-task-{i}", status=TaskStatus.RUNNING, node="n1") for i in range(3)]
    job = build_pod_group("r", running, min_member=2, phase=PodGroupPhase.RUNNING)
    preemptor_job = gang("p", 1)
    ssn = open_session(
        build_cluster([build_node("n1")], [job, preemptor_job]), conf("allocate", ("gang",))
    )
    preemptor = next(iter(preemptor_job.tasks.values()))
    assert [t.name for t in ssn.preemptable(preemptor, running)] == ["r-task-0"]


def test_not_ready_jobs_are_ordered_before_ready_ones():
    ready = build_pod_group(
        "ready", [build_pod("ready-task-0", status=TaskStatus.RUNNING, node="n1")], minutes=0
    )
    waiting = gang("waiting", 1, minutes=9)
    ssn = open_session(
        build_cluster([build_node("n1")], [ready, waiting]), conf("allocate", ("gang",))
    )
    assert ssn.job_order_fn(waiting, ready)


def test_job_with_too_few_pods_is_invalid_and_reported():
    job = gang("short", 2, min_member=3)
    decisions = run_session(build_cluster([build_node("n1")], [job]), conf("allocate"))
    assert decisions.binds == {}
    assert decisions.unschedulable["ns/short"] == (
        "Not enough valid tasks for gang-scheduling, valid: 2, min: 3"
    )


def test_running_job_short_of_min_turns_unknown():
    running = build_pod("j-task-0", status=TaskStatus.RUNNING, node="n1", cpu="4")
    job = build_pod_group(
        "j", [running, build_pod("j-task-1")], min_member=2, phase=PodGroupPhase.RUNNING
    )
    decisions = run_session(build_cluster([build_node("n1")], [job]), conf("allocate"))
    assert decisions.pod_group_phases["ns/j"] == PodGroupPhase.UNKNOWN
