"""tdm plugin (time-division multiplexing): revocable nodes lent to preemptable pods in time windows.

Volcano's counterpart: ``pkg/scheduler/plugins/tdm``. A node labelled
``volcano.sh/revocable-zone: <zone>`` belongs to a zone whose window is the argument
``tdm.revocable-zone.<zone>: "H:MM-H:MM"`` (``tdm_zones.py``). While the window is open only pods
whose revocable zone is ``*`` may go there (and such nodes score 100 for them); once it closes
the node takes no pod, and the victim hook (``enabledVictim``, asked by shuffle) names the running
preemptable pods on its nodes, at most each job's budget (``volcano.sh/jdb-*``). In preempt, a pod
that is itself preemptable or may use revocable nodes evicts nobody, and only preemptable running
pods on ordinary nodes are victims, again within budget. Jobs that are not preemptable go first,
and only they are starving.

The victim hook looks at most once per ``tdm.evict.period`` (a Go duration, default 1m; an
unreadable one is 1m): Volcano keeps the last time in a package variable, which lives as long as
the scheduler process, so plugins built per session still see it. Here it is kept in the
session's ``PluginMemory`` (``framework/memory.py``), which the live worker keeps for the life of
its process; a simulate or what-if session has a fresh one, so it is always the "first session",
which always looks. The time is the session's ``now``.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np
import numpy.typing as npt

from apis.durations import parse_duration
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.node_info import NodeInfo
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import PERMIT, REJECT, FitCode, PredicateStatus, TaskStatus
from scheduler.engine.framework import ArgSpec, Plugin, Session, register_plugin
from scheduler.engine.plugins.tdm_zones import (
    job_preemptable,
    max_pod_evict_num,
    node_zone,
    task_may_use_revocable,
    zone_closed_reason,
)

__all__ = ["EVICT_PERIOD_KEY", "ZONE_PREFIX", "TdmPlugin"]

ZONE_PREFIX = "tdm.revocable-zone."
EVICT_PERIOD_KEY = "tdm.evict.period"
LAST_EVICT_KEY = "lastEvictAt"
MAX_NODE_SCORE = 100.0
NOT_ALLOWED = "not allow to dispatch to revocable node"
# Appended to the node-answer cache key of pods that may use revocable nodes (see _split_keys).
_MAY_USE_REVOCABLE = "tdm:revocable-zone=*"

BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def _evict_period(text: str) -> timedelta:
    try:
        return timedelta(seconds=parse_duration(text))
    except (ValueError, OverflowError):
        return timedelta(minutes=1)


@register_plugin
class TdmPlugin(Plugin):
    """Revocable-zone filter and score, preempt victims, shuffle victims, job order and votes."""

    name = "tdm"
    arguments_schema = (
        ArgSpec(ZONE_PREFIX, str, "", prefix=True,
                help='the time window of revocable zone <name>, "H:MM-H:MM" (e.g. 10:00-21:00)'),
        ArgSpec(EVICT_PERIOD_KEY, str, "1m",
                help="a Go duration: revocable pods are looked for at most once per period"),
    )  # fmt: skip

    def on_session_open(self, ssn: Session) -> None:
        """Judge every zone at ``now`` once, then register the hooks."""
        self._ssn = ssn
        self._now: datetime = ssn.now
        self._zones = {str(k): str(v) for k, v in self.arguments.with_prefix(ZONE_PREFIX).items()}
        self._period = _evict_period(self.arguments.get_str(EVICT_PERIOD_KEY))
        # Per node row: revocable (any zone label), and why it is closed ('' while open).
        self._closed_reason = [
            (zone_closed_reason(self._zones, zone, self._now) or "") if zone else ""
            for zone in (node_zone(node) for node in ssn.node_list)
        ]
        self._closed: BoolArray = np.array([bool(r) for r in self._closed_reason], dtype=np.bool_)
        revocable = np.array([bool(node_zone(n)) for n in ssn.node_list], dtype=np.bool_)
        self._open: BoolArray = revocable & ~self._closed
        if revocable.any():
            self._split_keys(ssn)
        ssn.add_predicate_fn(self.name, self._predicate)
        ssn.add_batch_predicate_fn(self.name, self._batch_predicate, row=self._row_predicate)
        ssn.add_batch_node_order_fn(self.name, self._batch_score, row=self._row_score)
        ssn.add_preemptable_fn(self.name, self._preemptable)
        ssn.add_victim_tasks_fn(self.name, self._victims)
        ssn.add_job_order_fn(self.name, self._job_order, key=self._job_order_key)
        ssn.add_job_pipelined_fn(self.name, self._job_pipelined)
        ssn.add_job_starving_fn(self.name, self._job_starving)

    @staticmethod
    def _split_keys(ssn: Session) -> None:
        """Give pods that may use revocable nodes node-answer cache keys of their own.

        Node answers are cached per pod template (``TaskInfo.template_key``), and a template
        holds the spec, not the annotations this plugin reads: without this, a ``*`` pod and an
        ordinary pod of one spec would share the first one's filter and scores.
        """
        for job in ssn.jobs.values():
            for task in job.tasks.values():
                if task_may_use_revocable(task):
                    key = task.template_key or task.compute_template_key()
                    if key[-1:] != (_MAY_USE_REVOCABLE,):
                        task.template_key = (*key, _MAY_USE_REVOCABLE)

    # --- filter and score ------------------------------------------------------------------
    def _predicate(self, task: TaskInfo, node: NodeInfo) -> PredicateStatus | None:
        """Refuse every pod on a closed or unknown zone's node, and ordinary pods on an open one."""
        if not node_zone(node):
            return None
        reason = self._closed_reason[node.index]
        if not reason and task_may_use_revocable(task):
            return None
        return PredicateStatus(
            reason or NOT_ALLOWED, FitCode.UNSCHEDULABLE_AND_UNRESOLVABLE, plugin=self.name
        )

    def _batch_predicate(self, task: TaskInfo, rows: IntArray) -> BoolArray:
        if task_may_use_revocable(task):
            allowed: BoolArray = ~self._closed[rows]
            return allowed
        refused: BoolArray = self._closed[rows] | self._open[rows]
        return ~refused

    def _row_predicate(self, task: TaskInfo, row: int) -> bool:
        if self._closed[row]:
            return False
        return not self._open[row] or task_may_use_revocable(task)

    def _batch_score(self, task: TaskInfo, rows: IntArray) -> FloatArray:
        """Score 100 on an open revocable node for a pod that may use it, else 0.

        Volcano's score fails on a closed zone's node (dropping that node's per-node scores);
        the filter has already refused such nodes whenever tdm's predicate is on.
        """
        if not task_may_use_revocable(task):
            return np.zeros(len(rows), dtype=np.float64)
        scores: FloatArray = np.where(self._open[rows], MAX_NODE_SCORE, 0.0)
        return scores

    def _row_score(self, task: TaskInfo, row: int) -> float:
        return MAX_NODE_SCORE if self._open[row] and task_may_use_revocable(task) else 0.0

    # --- victims -----------------------------------------------------------------------------
    def _within_budget(self, by_job: dict[str, list[TaskInfo]]) -> list[TaskInfo]:
        """Return, job by job, the first tasks up to the job's eviction budget."""
        victims: list[TaskInfo] = []
        for uid, tasks in by_job.items():
            job = self._ssn.jobs.get(uid)
            if job is not None:
                victims.extend(tasks[: max(0, min(max_pod_evict_num(job), len(tasks)))])
        return victims

    def _preemptable(self, preemptor: TaskInfo, preemptees: list[TaskInfo]) -> list[TaskInfo]:
        """Return running preemptable pods on ordinary nodes; nothing for a preemptable preemptor."""
        if preemptor.preemptable or task_may_use_revocable(preemptor):
            return []  # Volcano's Reject: this tier names no victim
        by_job: dict[str, list[TaskInfo]] = {}
        nodes = self._ssn.nodes
        for task in preemptees:
            if not task.preemptable or task.status != TaskStatus.RUNNING:
                continue
            node = nodes.get(task.node_name)
            if node is None or node_zone(node):
                continue
            by_job.setdefault(task.job, []).append(task)
        return self._within_budget(by_job)

    def _victims(self, _tasks: list[TaskInfo]) -> list[TaskInfo]:
        """Return the running preemptable pods of closed zones' nodes, within budgets.

        Once per evict period (the first session always); the candidates shuffle offers are
        not read, as in Volcano.
        """
        memory = self._ssn.memory
        last = memory.get(self.name, LAST_EVICT_KEY)
        if isinstance(last, datetime):
            try:
                if last + self._period > self._now:
                    return []
            except OverflowError:
                return []
        by_zone: list[dict[str, list[TaskInfo]]] = []
        for zone in self._zones:
            if zone_closed_reason(self._zones, zone, self._now) is not None:
                by_zone.append(self._running_preemptable(zone))
        memory.put(self.name, LAST_EVICT_KEY, self._now)
        return [task for by_job in by_zone for task in self._within_budget(by_job)]

    def _running_preemptable(self, zone: str) -> dict[str, list[TaskInfo]]:
        by_job: dict[str, list[TaskInfo]] = {}
        for node in self._ssn.node_list:
            if node_zone(node) != zone:
                continue
            for task in node.tasks.values():
                if task.preemptable and task.status == TaskStatus.RUNNING:
                    by_job.setdefault(task.job, []).append(task)
        return by_job

    # --- jobs ----------------------------------------------------------------------------------
    @staticmethod
    def _job_order_key(job: JobInfo) -> int:
        return 1 if job_preemptable(job) else 0

    def _job_order(self, left: JobInfo, right: JobInfo) -> int:
        """Jobs that are not preemptable go first."""
        return self._job_order_key(left) - self._job_order_key(right)

    @staticmethod
    def _job_pipelined(job: JobInfo) -> int:
        return PERMIT if job.is_pipelined() else REJECT

    @staticmethod
    def _job_starving(job: JobInfo) -> bool:
        """Only a job that is not preemptable may preempt, and only while a pod is pending."""
        if job_preemptable(job):
            return False
        return job.count(TaskStatus.PENDING) > 0
