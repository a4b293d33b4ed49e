"""nodegroup plugin: queues bound to node groups (node label ``volcano.sh/nodegroup-name``).

Volcano's counterpart: ``pkg/scheduler/plugins/nodegroup``. A pod may go to a node of group G
only when its queue's ``spec.affinity`` admits G (required or preferred affinity, not required
anti-affinity; preferred anti-affinity always admits) and the queue's pods would stay within the
queue's ``volcano.sh/nodegroup-resource-limits`` for G. A node without the label takes pods only
with ``strict: false`` and only from queues without affinity; a labelled node takes no pod of a
queue without affinity. Nodes score +100 for required, +50 for preferred (or 50 x (n-i)/n by
position with ``enablePreferredOrder``), -1 for preferred anti-affinity. With
``enableHierarchy: true`` a queue without ``spec.affinity`` takes its nearest ancestor's.

Answers depend on the pod's queue, which the node-answer cache key (the pod template) does not
hold: pending pods get the queue appended to their key. What a queue holds per group changes
with every placement there; the rows of a capped group are marked changed then, so cached
masks are recomputed for them.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from scheduler.engine.api.node_info import NodeInfo
from scheduler.engine.api.resource import Resource
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import ALLOCATED_STATUSES, FitCode, PredicateStatus
from scheduler.engine.framework import ArgSpec, Plugin, Session, register_plugin
from scheduler.engine.framework.interface import Event, EventHandler
from scheduler.engine.plugins.nodegroup_queues import QueueAttr, inherit_affinity

__all__ = [
    "AFFINITY_NOT_FOUND",
    "LABEL_NOT_FOUND",
    "NODE_GROUP_LABEL",
    "NODE_UNSATISFIED",
    "RESOURCE_LIMIT_EXCEEDED",
    "RESOURCE_LIMIT_INVALID",
    "NodeGroupPlugin",
]

NODE_GROUP_LABEL = "volcano.sh/nodegroup-name"
AFFINITY_NOT_FOUND = "node group affinity not specified"
LABEL_NOT_FOUND = "node group label not found"
NODE_UNSATISFIED = "node does not satisfy the node group affinity"
RESOURCE_LIMIT_INVALID = "node group resource limit annotation invalid"
RESOURCE_LIMIT_EXCEEDED = "node group resource limit exceeded"

BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@register_plugin
class NodeGroupPlugin(Plugin):
    """Node-group affinity filter and score per queue, with per-group resource limits."""

    name = "nodegroup"
    arguments_schema = (
        ArgSpec("strict", bool, True,
                help="nodes without the volcano.sh/nodegroup-name label take no pod (false: "
                "they take pods of queues without node-group affinity)"),
        ArgSpec("enablePreferredOrder", bool, False,
                help="score preferred node groups by their position in the list (earlier "
                "higher) instead of 50 each"),
    )  # fmt: skip

    def on_session_open(self, ssn: Session) -> None:
        """Read every queue's rules and holdings, then register the filter and the score."""
        self._ssn = ssn
        self._strict = self.arguments.get_bool("strict")
        self._ordered = self.arguments.get_bool("enablePreferredOrder")
        self._attrs = {name: QueueAttr.of(queue) for name, queue in ssn.queues.items()}
        option = next((o for o in ssn.conf.plugin_options() if o.name == self.name), None)
        if option is not None and option.enabled("enableHierarchy"):
            inherit_affinity(ssn.queues, self._attrs)
        # Per node row: its group ('' with the label empty) or None without the label.
        self._groups: list[str | None] = [n.labels.get(NODE_GROUP_LABEL) for n in ssn.node_list]
        rows_of: dict[str, list[int]] = {}
        for row, group in enumerate(self._groups):
            if group is not None:
                rows_of.setdefault(group, []).append(row)
        self._rows_of = rows_of
        codes = {group: i for i, group in enumerate(rows_of)}
        self._group_ids: IntArray = np.array(
            [-1 if g is None else codes[g] for g in self._groups], dtype=np.int64
        )
        self._codes = codes
        # queue -> (static refusal reason per row, '' passes; score per row), built on first use.
        self._static: dict[str, tuple[list[str], BoolArray, FloatArray]] = {}
        for job in ssn.jobs.values():
            attr = self._attrs.get(job.queue)
            if attr is None:
                continue
            for status, tasks in job.task_status_index.items():
                if status in ALLOCATED_STATUSES:
                    for task in tasks.values():
                        self._account(attr, task, +1)
        self._split_keys(ssn)
        ssn.add_predicate_fn(self.name, self._predicate)
        ssn.add_batch_predicate_fn(self.name, self._batch_predicate, row=self._row_predicate)
        ssn.add_batch_node_order_fn(self.name, self._batch_score, row=self._row_score)
        ssn.add_event_handler(EventHandler(self._on_allocate, self._on_deallocate))

    @staticmethod
    def _split_keys(ssn: Session) -> None:
        """Append the queue to the node-answer cache key of every pod: answers differ by queue."""
        for job in ssn.jobs.values():
            marker = ("nodegroup", job.queue)
            for task in job.tasks.values():
                key = task.template_key or task.compute_template_key()
                if marker not in key:
                    task.template_key = (*key, marker)

    # --- what each queue holds per group ----------------------------------------------------------
    def _task_group(self, task: TaskInfo) -> str | None:
        node = self._ssn.nodes.get(task.node_name) if task.node_name else None
        return None if node is None else node.labels.get(NODE_GROUP_LABEL)

    def _account(self, attr: QueueAttr, task: TaskInfo, sign: int) -> str | None:
        group = self._task_group(task)
        if group is None:
            return None
        held = attr.allocated.get(group)
        if held is None:
            if sign < 0:
                return None
            held = Resource()
        attr.allocated[group] = held + task.resreq if sign > 0 else held - task.resreq
        return group

    def _on_event(self, event: Event, sign: int) -> None:
        job = self._ssn.jobs.get(event.task.job)
        attr = self._attrs.get(job.queue) if job is not None else None
        if attr is None:
            return
        group = self._account(attr, event.task, sign)
        if group is not None and group in attr.limits:
            self._ssn.touch_nodes(self._rows_of[group])

    def _on_allocate(self, event: Event) -> None:
        self._on_event(event, +1)

    def _on_deallocate(self, event: Event) -> None:
        self._on_event(event, -1)

    # --- the filter --------------------------------------------------------------------------------
    def _queue_rows(self, queue: str) -> tuple[list[str], BoolArray, FloatArray]:
        """Return the queue's static refusal per row, its pass mask and its scores (cached)."""
        found = self._static.get(queue)
        if found is not None:
            return found
        attr = self._attrs.get(queue)
        affinity = attr.affinity if attr is not None else None
        reasons: list[str] = []
        scores: list[float] = []
        for group in self._groups:
            reasons.append(self._static_reason(attr, group))
            if group is None or affinity is None:
                scores.append(0.0)
            else:
                scores.append(affinity.score(group, self._ordered))
        found = (
            reasons,
            np.array([not r for r in reasons], dtype=np.bool_),
            np.array(scores, dtype=np.float64),
        )
        self._static[queue] = found
        return found

    def _static_reason(self, attr: QueueAttr | None, group: str | None) -> str:
        """Return why a node of ``group`` refuses the queue's pods whatever they ask ('' fits)."""
        if attr is not None and attr.limit_error:
            return RESOURCE_LIMIT_INVALID
        unset = attr is None or attr.unset
        if group is None:
            return "" if not self._strict and unset else LABEL_NOT_FOUND
        if unset:
            return AFFINITY_NOT_FOUND
        assert attr is not None
        assert attr.affinity is not None
        return "" if attr.affinity.admits(group) else NODE_UNSATISFIED

    def _exceeded_groups(self, attr: QueueAttr, task: TaskInfo) -> list[str]:
        """Return the capped groups where the queue's holding plus ``task`` is over the cap."""
        out = []
        for group, limit in attr.limits.items():
            held = attr.allocated.get(group)
            used = task.resreq if held is None else held + task.resreq
            if limit.exceeded(used):
                out.append(group)
        return out

    def _reason(self, task: TaskInfo, row: int) -> str:
        job = self._ssn.jobs.get(task.job)
        if job is None:
            return f"job {task.job} not found in session"
        reasons = self._queue_rows(job.queue)[0]
        if reasons[row]:
            return reasons[row]
        attr = self._attrs.get(job.queue)
        group = self._groups[row]
        if attr is not None and attr.limits and group in self._exceeded_groups(attr, task):
            return RESOURCE_LIMIT_EXCEEDED
        return ""

    def _predicate(self, task: TaskInfo, node: NodeInfo) -> PredicateStatus | None:
        reason = self._reason(task, node.index)
        if not reason:
            return None
        return PredicateStatus(reason, FitCode.UNSCHEDULABLE_AND_UNRESOLVABLE, plugin=self.name)

    def _row_predicate(self, task: TaskInfo, row: int) -> bool:
        return not self._reason(task, row)

    def _batch_predicate(self, task: TaskInfo, rows: IntArray) -> BoolArray:
        job = self._ssn.jobs.get(task.job)
        if job is None:
            return np.zeros(len(rows), dtype=np.bool_)
        passes: BoolArray = self._queue_rows(job.queue)[1][rows]
        attr = self._attrs.get(job.queue)
        if attr is not None and attr.limits:
            over = [self._codes[g] for g in self._exceeded_groups(attr, task) if g in self._codes]
            if over:
                passes = passes & ~np.isin(self._group_ids[rows], over)
        return passes

    # --- the score ---------------------------------------------------------------------------------
    def _batch_score(self, task: TaskInfo, rows: IntArray) -> FloatArray:
        job = self._ssn.jobs.get(task.job)
        if job is None:
            return np.zeros(len(rows), dtype=np.float64)
        scores: FloatArray = self._queue_rows(job.queue)[2][rows]
        return scores

    def _row_score(self, task: TaskInfo, row: int) -> float:
        job = self._ssn.jobs.get(task.job)
        return 0.0 if job is None else float(self._queue_rows(job.queue)[2][row])
