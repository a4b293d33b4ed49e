"""A bind the session's binder refuses: the task's room is released at once, later jobs use it.

Volcano's counterpart: ``SchedulerCache.Bind`` marks a failed task ``SchedulerError`` and
resyncs it, so its reservation does not outlive the failure; our engine learns of the failure as
it binds (``Session.bind_task``) and the next session retries the task.
"""

from __future__ import annotations

from typing import Any

from scheduler.engine.api.types import TaskStatus
from scheduler.engine.framework import open_session, run_session
from scheduler.engine.framework.registry import get_action
from scheduler.engine.framework.session import Binder
from tests.engine.builders import build_cluster, build_node, conf, gang

ONE_SLOT: dict[str, Any] = {"cpu": "2", "memory": "4Gi"}  # room for one 2-cpu pod


def refuse(task_uid: str, error: str = "connection refused") -> Binder:
    """Return a binder failing the bind of ``task_uid`` only."""

    def binder(task: str, node: str) -> str | None:
        return error if task == task_uid else None

    return binder


def test_a_failed_bind_releases_its_room_for_the_next_job_in_the_same_session() -> None:
    # Both jobs fit only on n1, one at a time: "a" comes first (older), its bind fails.
    cluster = build_cluster(
        [build_node("n1", **ONE_SLOT)],
        [gang("a", 1, cpu="2", minutes=0), gang("b", 1, cpu="2", minutes=1)],
    )

    decisions = run_session(cluster, conf(), binder=refuse("ns/a-task-0"))

    assert decisions.bind_errors == {"ns/a-task-0": ("n1", "connection refused")}
    assert decisions.binds == {"ns/b-task-0": "n1"}


def test_without_the_failure_the_second_job_waits() -> None:
    cluster = build_cluster(
        [build_node("n1", **ONE_SLOT)],
        [gang("a", 1, cpu="2", minutes=0), gang("b", 1, cpu="2", minutes=1)],
    )

    decisions = run_session(cluster, conf())

    assert decisions.binds == {"ns/a-task-0": "n1"}
    assert decisions.bind_errors == {}


def test_the_failed_task_is_pending_off_its_node_and_the_listener_never_hears_of_it() -> None:
    heard: list[tuple[str, str]] = []
    cluster = build_cluster([build_node("n1")], [gang("a", 2)])
    ssn = open_session(
        cluster,
        conf(),
        bind_listener=lambda task, node: heard.append((task, node)),
        binder=refuse("ns/a-task-1"),
    )
    for name in ("enqueue", "allocate"):
        action = get_action(name)
        assert action is not None
        action.execute(ssn)

    job = ssn.jobs["ns/a"]
    failed = job.tasks["ns/a-task-1"]
    assert (failed.status, failed.node_name) == (TaskStatus.PENDING, "")
    assert job.tasks["ns/a-task-0"].status == TaskStatus.BINDING
    assert heard == [("ns/a-task-0", "n1")]
    # Only the bound pod holds room on n1: one cpu of four is used.
    assert ssn.nodes["n1"].used.get("cpu") == 1000
