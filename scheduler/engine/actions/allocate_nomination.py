"""Allocate's nomination fast path: a sub-job pinned to a HyperNode by a preempting action.

Volcano's counterpart: ``allocateFromNomination`` / ``validateNomination`` /
``invalidateSubJobNomination`` in ``pkg/scheduler/actions/allocate/allocate.go``.

gangpreempt / gangreclaim evict victims for a sub-job inside one HyperNode and leave two marks: the
sub-job's ``nominated_hypernode`` and each pending pod's nominated node
(``status.nominatedNodeName``, ``TaskInfo.nominated_node_name``). Allocate then places every
pending task of the sub-job on its own nominated node, without the HyperNode search, when each
task is allocatable, has a nominated node, that node is a node of the nominated HyperNode
(the virtual top: every node) known to the session, and the task passes its pre-predicates and
the node's predicates with the node's future-idle resources. Any miss clears the nomination and
the tasks' nominated nodes, and the caller runs the normal search. The nomination is cleared
again when the job commits (the promise is redeemed).

Volcano does not check the nominated HyperNode against the job-level candidate being tried, so
a valid nomination succeeds alike in every candidate; the hard-topology path then takes the
candidate holding the nominated HyperNode (one of Volcano's equal choices).

How a preempting action nominates: ``sub = sub_jobs_of(job)[sub_uid]`` (``job.uid`` for a job
without a subGroupPolicy), ``sub.nominated_hypernode = <HyperNode>`` (``TOP_HYPERNODE`` for a
job without hard topology), and ``task.nominated_node_name = <node>`` on each pending task.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from scheduler.engine.api.hypernode import TOP_HYPERNODE
from scheduler.engine.framework import Statement

if TYPE_CHECKING:
    from scheduler.engine.actions.allocate import _Worksheet
    from scheduler.engine.api.hypernode import HyperNodeTree
    from scheduler.engine.api.queue_info import QueueInfo
    from scheduler.engine.api.sub_job import SubJobInfo
    from scheduler.engine.api.task_info import TaskInfo
    from scheduler.engine.framework.session import Session
    from scheduler.engine.util.node_select import NodeSelector

__all__ = [
    "allocate_from_nomination",
    "invalidate_nomination",
    "nominated_rows",
    "validate_nomination",
]

# (task, node row, pipelined): one step of a nomination plan.
Step = tuple["TaskInfo", int, bool]


def invalidate_nomination(sub: SubJobInfo, tasks: list[TaskInfo] | None) -> None:
    """Drop ``sub``'s nominated HyperNode and the nominated nodes of its pending ``tasks``."""
    sub.nominated_hypernode = ""
    for task in tasks or ():
        task.nominated_node_name = ""


def nominated_rows(ssn: Session, tree: HyperNodeTree | None, hypernode: str) -> set[int]:
    """Return the node rows of ``hypernode`` (the virtual top: every node; unknown: none)."""
    if hypernode == TOP_HYPERNODE:
        return set(range(len(ssn.node_list)))
    found = None if tree is None else tree.rows.get(hypernode)
    return set() if found is None else set(np.asarray(found).tolist())


def validate_nomination(
    ssn: Session,
    selector: NodeSelector,
    allocatable_fns: list[Callable[..., bool]],
    queue: QueueInfo,
    tasks: list[TaskInfo],
    rows: set[int],
) -> list[Step] | None:
    """Return where each task goes (its nominated node; pipelined when only its future-idle
    resources fit), or None at the first task that cannot (see the module docstring)."""
    plan: list[Step] = []
    pre_filters = ssn.has_fns("pre_predicate")
    for task in tasks:
        if not all(fn(queue, task) for fn in allocatable_fns):
            return None
        node = ssn.nodes.get(task.nominated_node_name) if task.nominated_node_name else None
        if node is None or node.index not in rows:
            return None
        if pre_filters and ssn.pre_predicate_fn(task) is not None:
            return None
        entry = selector.entry(task)
        row = node.index
        if not (entry.fit_future[row] and entry.passes[row]):
            return None
        plan.append((task, row, not bool(entry.fit_idle[row])))
    return plan


def allocate_from_nomination(
    ssn: Session,
    tree: HyperNodeTree | None,
    selector: NodeSelector,
    allocatable_fns: list[Callable[..., bool]],
    queue: QueueInfo,
    sub: SubJobInfo,
    sheet: _Worksheet,
) -> Statement | None:
    """Place every pending task of ``sheet`` on its nominated node and consume the sheet; or
    clear the nomination and return None (the caller then searches as usual)."""
    pinned = sub.nominated_hypernode
    pending = sheet.remaining()
    rows = nominated_rows(ssn, tree, pinned)
    plan = (
        validate_nomination(ssn, selector, allocatable_fns, queue, pending, rows) if rows else None
    )
    if not plan:
        invalidate_nomination(sub, pending)
        return None
    stmt = Statement(ssn)
    for task, row, pipelined in plan:
        if sub.network_topology is not None:
            task.job_allocated_hypernode = pinned
        node = ssn.node_list[row]
        if pipelined:
            stmt.pipeline(task, node)
        else:
            stmt.allocate(task, node)
    sheet.next = len(sheet.tasks)
    if tree is not None:
        sub.allocated_hypernode = tree.lca(sub.allocated_hypernode, pinned)
    return stmt
