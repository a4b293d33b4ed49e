"""Why a pod waits, as Kubernetes shows it: the PodScheduled condition and nominatedNodeName.

Volcano's counterpart: ``SchedulerCache.taskUnschedulable`` and ``RecordJobStatusEvent``. After
each session every pod left pending gets ``PodScheduled=False``, reason ``Unschedulable``, and the
engine's own explanation: the task's fit error (``0/100 nodes are available: 100 Insufficient
cpu.``) or, for a task the gang held back, its job's. A pipelined pod is nominated to the node
it waits for; a bound pod gets ``PodScheduled=True`` and loses its nomination. A pod held by
``spec.schedulingGates`` keeps the ``SchedulingGated`` condition it was created with (Volcano's
cache leaves it too). A pod whose bind failed gets reason ``SchedulerError`` and ``failed to bind
to node <node>: <error>``, as Volcano's ``SchedulerCache.Bind`` writes it.

A pending pod is only written when what it shows changes (status, reason, message or nominee),
so a pod that waits for an hour is not rewritten, nor streamed to watchers, every second; the
condition's ``lastTransitionTime`` moves only when its status flips, as in Kubernetes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from scheduler.cache.snapshot import PodRow, Snapshot
from scheduler.engine.framework.decisions import Decisions

__all__ = ["SCHEDULER_ERROR", "PodStatusWriter", "bind_error_message"]

POD_SCHEDULED = "PodScheduled"
UNSCHEDULABLE = "Unschedulable"
SCHEDULER_ERROR = "SchedulerError"  # Volcano's PodReasonSchedulerError


def bind_error_message(node: str, error: str) -> str:
    """Return what a pod whose bind to ``node`` failed with ``error`` shows (Volcano's words)."""
    return f"failed to bind to node {node}: {error}"


def _stamp(now: datetime) -> str:
    return now.isoformat(timespec="seconds").replace("+00:00", "Z")


class PodStatusWriter:
    """Build the conditions column of pods for one apply (decoding each stored text once)."""

    def __init__(self, now: datetime) -> None:
        self.when = now
        self.now = _stamp(now)
        self._decoded: dict[str, list[dict[str, Any]]] = {}
        # (pk, message) of pods whose PodScheduled=False condition pending_rows changes: each
        # gets a FailedScheduling event once written (a new nominee alone is no new failure).
        self.failures: list[tuple[int, str]] = []
        scheduled = [self._condition("True", "", "", self.now)]
        self.first_scheduled = json.dumps(scheduled)

    @staticmethod
    def _condition(status: str, reason: str, message: str, since: str) -> dict[str, Any]:
        cond: dict[str, Any] = {"type": POD_SCHEDULED, "status": status}
        if reason:
            cond["reason"] = reason
        if message:
            cond["message"] = message
        cond["lastProbeTime"] = None
        cond["lastTransitionTime"] = since
        return cond

    def _old(self, row: PodRow) -> list[dict[str, Any]]:
        text = row.conditions
        if not text or text == "[]":
            return []
        found = self._decoded.get(text)
        if found is None:
            value = json.loads(text)
            found = self._decoded[text] = value if isinstance(value, list) else []
        return found

    def _with(self, old: list[dict[str, Any]], status: str, reason: str, message: str) -> str:
        previous = next((c for c in old if c.get("type") == POD_SCHEDULED), None)
        since = self.now
        if previous is not None and previous.get("status") == status:
            since = str(previous.get("lastTransitionTime") or self.now)
        others = [c for c in old if c.get("type") != POD_SCHEDULED]
        return json.dumps([*others, self._condition(status, reason, message, since)])

    def scheduled(self, row: PodRow) -> str:
        """Return the conditions of ``row`` once bound: ``PodScheduled=True``."""
        old = self._old(row)
        return self._with(old, "True", "", "") if old else self.first_scheduled

    def pending_rows(
        self,
        snapshot: Snapshot,
        decisions: Decisions,
        bound: set[str],
        bind_errors: Mapping[str, tuple[str, str]] | None = None,
    ) -> list[tuple[Any, ...]]:
        """Return ``(pk, version, conditions, nominatedNodeName)`` of pending pods that change.

        ``bound`` are the pods this session binds (written with the bind) or tried to (refused
        as stale: the next session decides again). ``bind_errors`` (task uid → (node, error))
        are the binds that failed, the session's own (``decisions.bind_errors``) and those
        the write found (``BindResult.failed``): whatever else is said of them, that is shown.
        """
        wanted: dict[str, tuple[str, str, str]] = {}  # pod → (reason, message, nominee)
        for job_uid, message in decisions.unschedulable.items():
            job = snapshot.cluster.jobs.get(job_uid)
            for task_uid, task in job.tasks.items() if job is not None else ():
                # A gated pod keeps the SchedulingGated condition the API server gave it.
                if not task.scheduling_gated:
                    wanted[task_uid] = (UNSCHEDULABLE, message, "")
        for task_uid, message in decisions.task_fit_errors.items():
            wanted[task_uid] = (UNSCHEDULABLE, message, "")
        for task_uid, node in decisions.pipelined.items():
            message = (
                f"Pod {task_uid} can possibly be assigned to {node}, once resource is released"
            )
            wanted[task_uid] = (UNSCHEDULABLE, message, node)
        failed = bind_errors if bind_errors is not None else decisions.bind_errors
        for task_uid, (node, error) in failed.items():
            wanted[task_uid] = (SCHEDULER_ERROR, bind_error_message(node, error), "")
        rows: list[tuple[Any, ...]] = []
        for task_uid, (reason, message, nominee) in wanted.items():
            row = snapshot.pods.get(task_uid)
            if row is None or not row.pending or (task_uid in bound and task_uid not in failed):
                continue
            old = self._old(row)
            previous = next((c for c in old if c.get("type") == POD_SCHEDULED), None)
            same_condition = (
                previous is not None
                and previous.get("status") == "False"
                and previous.get("reason") == reason
                and previous.get("message", "") == message
            )
            if same_condition and row.nominated == nominee:
                continue  # what the pod shows is already this: no write, no watch event
            if not same_condition:
                self.failures.append((row.pk, message))
            conditions = self._with(old, "False", reason, message)
            rows.append((row.pk, row.resource_version, conditions, nominee))
        return rows
