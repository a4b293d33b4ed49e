"""Allocate's nomination fast path (Volcano's TestInvalidateSubJobNomination,
TestAllocateFromNomination_*, TestValidateNomination_MissBranches and
TestAllocate_FlatPathHonorsAndClearsNomination)."""

from __future__ import annotations

import pytest

from scheduler.engine.actions.allocate import _Worksheet
from scheduler.engine.actions.allocate_nomination import (
    allocate_from_nomination,
    invalidate_nomination,
)
from scheduler.engine.api.hypernode import TOP_HYPERNODE
from scheduler.engine.api.sub_job import SubJobInfo, sub_jobs_of
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import TaskStatus
from scheduler.engine.framework import Session, close_session
from scheduler.engine.framework.registry import ensure_loaded, get_action
from scheduler.engine.util.node_select import NodeSelector
from tests.engine.builders import build_node, build_pod, build_pod_group, conf
from tests.engine.sub_job_kit import hard, leaf, session, spine


def _pending(name: str, nominated: str, cpu: str = "1") -> TaskInfo:
    pod = build_pod(name, cpu=cpu)
    pod.nominated_node_name = nominated
    return pod


def _try(ssn: Session, pinned: str) -> tuple[object, SubJobInfo, _Worksheet]:
    """Nominate ``pinned`` for the only job's default sub-job and take the fast path."""
    (job,) = ssn.jobs.values()
    sub = sub_jobs_of(job)[job.uid]
    sub.nominated_hypernode = pinned
    sheet = _Worksheet(sorted(job.tasks.values(), key=lambda t: t.uid))
    stmt = allocate_from_nomination(
        ssn,
        ssn.hypernodes,
        NodeSelector.of(ssn),
        ssn.flat_fns("allocatable"),
        ssn.queues[job.queue],
        sub,
        sheet,
    )
    return stmt, sub, sheet


def test_invalidate_clears_the_sub_job_and_every_pending_task() -> None:
    sub = SubJobInfo(gid="g", uid="s", job="j", nominated_hypernode="hn-1")
    invalidate_nomination(sub, None)  # no tasks to clear: only the sub-job's mark
    assert sub.nominated_hypernode == ""
    tasks = [_pending("t1", "n1"), _pending("t2", "n2"), _pending("t3", "")]
    sub.nominated_hypernode = "hn-1"
    invalidate_nomination(sub, tasks)
    assert sub.nominated_hypernode == ""
    assert [t.nominated_node_name for t in tasks] == ["", "", ""]


def test_a_nominated_hypernode_gone_from_the_topology_falls_back_and_clears() -> None:
    task = _pending("t1", "n1")
    ssn = session([build_node("n1")], [build_pod_group("j", [task])], [leaf("hn-other", ["n1"])])
    stmt, sub, sheet = _try(ssn, "hn-pinned")
    assert stmt is None
    assert sheet.next == 0  # the normal search still has every task
    assert sub.nominated_hypernode == ""
    assert task.nominated_node_name == ""


@pytest.mark.parametrize(
    ("nominated", "node_cpu", "why"),
    [
        ("", "4", "task missing its nominated node"),
        ("n-outside", "4", "nominated node outside the nominated HyperNode"),
        ("n-ghost", "4", "nominated node unknown to the session"),
        ("n1", "500m", "nominated node too small (predicates / future idle)"),
    ],
)
def test_validation_misses_fall_back_and_clear(nominated: str, node_cpu: str, why: str) -> None:
    task = _pending("t1", nominated)
    nodes = [build_node("n1", cpu=node_cpu), build_node("n-outside")]
    ssn = session(nodes, [build_pod_group("j", [task])], [leaf("hn-pinned", ["n1"])])
    stmt, sub, _sheet = _try(ssn, "hn-pinned")
    assert stmt is None, why
    assert sub.nominated_hypernode == ""
    assert task.nominated_node_name == ""


def test_happy_path_places_every_task_on_its_nominated_node_and_drains_the_sheet() -> None:
    tasks = [_pending("t1", "n2"), _pending("t2", "n2")]
    nodes = [build_node("n1"), build_node("n2"), build_node("n3")]
    ssn = session(nodes, [build_pod_group("j", tasks)], [leaf("hn-pinned", ["n2", "n3"])])
    stmt, sub, sheet = _try(ssn, "hn-pinned")
    assert stmt is not None
    assert sorted((t.name, t.node_name) for t in tasks) == [("t1", "n2"), ("t2", "n2")]
    assert sheet.next == len(sheet.tasks)  # nothing left for the normal search
    assert sub.allocated_hypernode == "hn-pinned"  # LCA("", pinned)


def _flat_session(nominated: str, node_cpu: str = "8") -> tuple[Session, TaskInfo]:
    task = _pending("p1", nominated)
    nodes = [build_node("n0", cpu="2"), build_node("n1", cpu=node_cpu)]
    plugins = ("gang", "predicates", "nodeorder", "binpack")
    return session(nodes, [build_pod_group("j", [task])], None, conf("allocate", plugins)), task


def test_flat_path_honours_and_clears_the_nomination() -> None:
    ssn, task = _flat_session("n1")
    job = ssn.jobs[task.job]
    default = sub_jobs_of(job)[job.uid]
    default.nominated_hypernode = TOP_HYPERNODE  # what gangpreempt leaves for a flat job
    ensure_loaded()
    allocate = get_action("allocate")
    assert allocate is not None
    allocate.execute(ssn)
    decisions = close_session(ssn)
    assert decisions.binds == {"ns/p1": "n1"}  # binpack alone would fill the small n0
    assert default.nominated_hypernode == ""


def test_flat_path_nomination_that_no_longer_fits_falls_back_to_the_search() -> None:
    ssn, task = _flat_session("n1", node_cpu="500m")
    job = ssn.jobs[task.job]
    default = sub_jobs_of(job)[job.uid]
    default.nominated_hypernode = TOP_HYPERNODE
    ensure_loaded()
    allocate = get_action("allocate")
    assert allocate is not None
    allocate.execute(ssn)
    decisions = close_session(ssn)
    assert decisions.binds == {"ns/p1": "n0"}
    assert default.nominated_hypernode == ""
    assert task.nominated_node_name == ""


def test_hard_topology_path_honours_the_nominated_hypernode_and_clears_it() -> None:
    """A hard-topology job (no policy) nominated into leaf-2 lands on its pods' nominated
    nodes there, though leaf-1 (partly used, better binpacked) would win the search."""
    tasks = [_pending("t1", "n3"), _pending("t2", "n4")]
    busy = build_pod("busy", status=TaskStatus.RUNNING, node="n1")
    job = build_pod_group("j", tasks, min_member=2)
    job.network_topology = hard(1)
    nodes = [build_node(n) for n in ("n1", "n2", "n3", "n4")]
    tree = [
        leaf("leaf-1", ["n1", "n2"]),
        leaf("leaf-2", ["n3", "n4"]),
        spine("s", ["leaf-1", "leaf-2"]),
    ]
    ssn = session(nodes, [job, build_pod_group("other", [busy])], tree)
    live = ssn.jobs[job.uid]
    default = sub_jobs_of(live)[live.uid]
    default.nominated_hypernode = "leaf-2"
    ensure_loaded()
    allocate = get_action("allocate")
    assert allocate is not None
    allocate.execute(ssn)
    decisions = close_session(ssn)
    assert decisions.binds == {"ns/t1": "n3", "ns/t2": "n4"}
    assert default.nominated_hypernode == ""
    assert decisions.allocated_hypernodes[live.uid] == "leaf-2"
