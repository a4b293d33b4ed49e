"""One pod's turn in an allocate round, shared by the flat, HyperNode and sub-job paths.

Volcano's ``allocateResourcesForTasks`` body: the pre-filters, the node choice, and on no node the
fit error the job reports and its role marked failed; on a node, the pod allocated (or pipelined
onto a node whose resources are still being released). What a path does around it (which rows it
may choose among, when a miss ends the round, when readiness stops it) stays with the path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scheduler.engine.api.job_info import JobInfo
    from scheduler.engine.api.task_info import TaskInfo
    from scheduler.engine.framework import Statement
    from scheduler.engine.framework.session import Session
    from scheduler.engine.util.node_select import NodeSelector, Placement

__all__ = ["all_say", "place_one"]


def all_say(fns: list[Callable[..., bool]], *args: object) -> bool:
    """Return True when every function of ``fns`` says yes (``dispatch.all_pass``, flat)."""
    for fn in fns:  # noqa: SIM110 - cheaper than all() over a generator
        if not fn(*args):
            return False
    return True


def place_one(
    ssn: Session,
    selector: NodeSelector,
    stmt: Statement,
    job: JobInfo,
    failed_roles: set[str],
    task: TaskInfo,
    choose: Callable[[TaskInfo], Placement | None],
    pre_filters: bool,
) -> Placement | None:
    """Choose ``task``'s node with ``choose`` and place it in ``stmt``; None when no node takes
    it, the reason kept in ``job.fit_errors`` and its role added to ``failed_roles``."""
    failure = ssn.pre_predicate_fn(task) if pre_filters else None
    placement = None if failure is not None else choose(task)
    if placement is None:
        job.fit_errors[task.uid] = failure.reason if failure is not None else selector.explain(task)
        failed_roles.add(task.role)
        return None
    job.fit_errors.pop(task.uid, None)
    if placement.pipelined:
        stmt.pipeline(task, placement.node)
    else:
        stmt.allocate(task, placement.node)
    return placement
