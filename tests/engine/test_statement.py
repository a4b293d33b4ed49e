"""Statement: a job's operations are committed together or undone together."""

from __future__ import annotations

import numpy as np

from scheduler.engine.api.types import TaskStatus
from scheduler.engine.framework import open_session
from tests.engine.builders import build_cluster, build_node, build_pod, build_pod_group, conf


def session_with_running_and_pending():
    running = build_pod("old-task-0", status=TaskStatus.RUNNING, node="n1", cpu="2")
    pending = [build_pod(f"new-task-{i}") for i in range(2)]
    cluster = build_cluster(
        [build_node("n1"), build_node("n2")],
        [build_pod_group("old", [running]), build_pod_group("new", pending, min_member=2)],
    )
    return open_session(cluster, conf()), running, pending


def test_discard_restores_statuses_and_node_arrays():
    ssn, running, pending = session_with_running_and_pending()
    before = {
        name: getattr(ssn.arrays, name).copy()
        for name in ("idle", "used", "releasing", "pipelined", "future_idle")
    }
    stmt = ssn.statement()
    stmt.allocate(pending[0], ssn.nodes["n2"])
    stmt.pipeline(pending[1], ssn.nodes["n1"])
    stmt.evict(running, "preempted")
    assert ssn.nodes["n1"].releasing.get("cpu") == 2000
    stmt.discard()
    for name, array in before.items():
        assert np.array_equal(getattr(ssn.arrays, name), array), name
    assert [t.status for t in pending] == [TaskStatus.PENDING, TaskStatus.PENDING]
    assert running.status == TaskStatus.RUNNING
    assert ssn.decisions.binds == {}
    assert ssn.decisions.evictions == []


def test_commit_binds_allocations_and_records_evictions():
    ssn, running, pending = session_with_running_and_pending()
    stmt = ssn.statement()
    stmt.evict(running, "preempted", preemptor=pending[1].uid)
    stmt.allocate(pending[0], ssn.nodes["n2"])
    stmt.pipeline(pending[1], ssn.nodes["n1"])
    stmt.commit()
    assert ssn.decisions.binds == {"ns/new-task-0": "n2"}
    assert [(e.task, e.node, e.preemptor) for e in ssn.decisions.evictions] == [
        ("ns/old-task-0", "n1", "ns/new-task-1")
    ]
    assert pending[0].status == TaskStatus.BINDING
    assert pending[1].status == TaskStatus.PIPELINED


def test_pipelined_task_uses_future_idle_not_idle():
    ssn, _running, pending = session_with_running_and_pending()
    node = ssn.nodes["n1"]
    idle_before = node.idle
    ssn.statement().pipeline(pending[0], node)
    assert node.idle == idle_before
    assert node.future_idle.get("cpu") == idle_before.get("cpu") - 1000


def test_merge_moves_operations_so_one_discard_undoes_both():
    ssn, _running, pending = session_with_running_and_pending()
    outer, inner = ssn.statement(), ssn.statement()
    outer.allocate(pending[0], ssn.nodes["n2"])
    inner.allocate(pending[1], ssn.nodes["n2"])
    outer.merge(inner)
    assert len(inner) == 0
    outer.discard()
    assert ssn.nodes["n2"].used.get("cpu") == 0
