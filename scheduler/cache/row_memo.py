"""What the snapshot works out from a row, kept beside the row cache's rows between reads.

The row cache (``row_cache``) keeps the rows; this module keeps what the snapshot derived from
them (``Rows.memo``), reused while a row is the very same tuple:

- ``Decoder``: JSON text decoded once per distinct text, pod templates and requests once per
  distinct spec, labels and request text (most pods repeat their task's);
- ``task_memo``: pod pk → its row, the ``TaskInfo`` built from it and the task's first pod it
  took its template and limits from; ``job_memo`` the same for PodGroups' ``JobInfo``. These
  pristine objects are never handed to a session: each read gets copies (``clone_task``,
  ``clone_job``), a few attribute copies instead of a constructor (0.7 us against 3 us a task);
- ``node_memo`` and ``pod_row_memo``: the same for nodes' parts and apply's ``PodRow``.

A full read of the row cache drops the memo with the rows; the decoder starts afresh past a
bound of texts, and the task memo when what a task depends on besides its row changes.
"""

from __future__ import annotations

import json
from typing import Any

from scheduler.cache.device_rows import DeviceAsks
from scheduler.cache.pod_fields import pod_template, scheduling_gated
from scheduler.cache.row_cache import Rows
from scheduler.cache.slot_objects import slot_copier
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.resource import PODS, Resource
from scheduler.engine.api.task_info import TaskInfo, TaskTemplate
from scheduler.engine.api.types import PodGroupCondition

__all__ = [
    "PREEMPTABLE",
    "Decoder",
    "FirstOfTask",
    "JobMemo",
    "PodParts",
    "TaskMemo",
    "clone_job",
    "clone_task",
    "decoder",
    "job_memo",
    "node_memo",
    "pod_row_memo",
    "task_memo",
]


PREEMPTABLE = "volcano.sh/preemptable"

# A pod's (annotations, device asks, NUMA ask, preemptable, scheduling-gated): ``pod_parts``
PodParts = tuple[dict[str, str], Any, Any, bool, bool]


class Decoder:
    """Decode JSON text once per distinct value (most pods repeat their task's text)."""

    def __init__(self) -> None:
        self._seen: dict[str | None, Any] = {}
        self.resources: dict[str | None, Resource] = {}
        # template key → (template, priorityClassName, preemptionPolicy)
        self.templates: dict[tuple[object, ...], tuple[TaskTemplate, str, str]] = {}
        # (namespace, spec text) → the same, labels aside (jobs of one spec, labelled apart)
        self.specs: dict[tuple[str, str | None], tuple[TaskTemplate, str, str]] = {}
        # task key → the same, for this session (``pod_tasks.pod_task``: replicas of a task share a spec)
        # and the pods' limits, from the task's first pod (``FirstOfTask``)
        self.by_task: dict[tuple[object, ...], FirstOfTask] = {}
        # spec text → the pods' device and NUMA asks (deviceshare, numa-aware)
        self.device_asks = DeviceAsks(self)
        # (spec text, annotations text) → what ``pod_parts`` works out of them
        self.parts: dict[tuple[str | None, str | None], PodParts] = {}

    def new_session(self) -> None:
        """Forget what was keyed by task: a task's pods may have a new spec by the next read.

        What is keyed by the texts themselves stays right for as long as the decoder lives.
        """
        self.by_task = {}

    def size(self) -> int:
        """Return how many texts are remembered (the cache starts afresh past a bound)."""
        return len(self._seen) + len(self.templates) + len(self.specs) + len(self.parts)

    def pod_parts(self, spec_text: str | None, annotations_text: str | None) -> PodParts:
        """Return a pod's annotations, device and NUMA asks, preemptable and gated flags.

        Once per distinct spec and annotations text: replicas of a task repeat both.
        """
        key = (spec_text, annotations_text)
        found = self.parts.get(key)
        if found is None:
            annotations: dict[str, str] = self(annotations_text) or {}
            devices, numa = self.device_asks(spec_text, annotations)
            preemptable = annotations.get(PREEMPTABLE, "true").strip().lower() in ("true", "1", "t")
            found = self.parts[key] = (
                annotations,
                devices,
                numa,
                preemptable,
                scheduling_gated(spec_text),
            )
        return found

    def template(
        self, namespace: str, spec_text: str | None, labels_text: str | None
    ) -> tuple[TaskTemplate, str, str]:
        """Return ``(template, priorityClassName, preemptionPolicy)`` of a pod's spec and labels.

        One template per distinct spec and labels; templates of one spec share its parts.
        """
        same = (namespace, spec_text, labels_text)
        found = self.templates.get(same)
        if found is None:
            base = self.specs.get((namespace, spec_text))
            if base is None:
                spec = self(spec_text) or {}
                base = self.specs[(namespace, spec_text)] = (
                    pod_template(spec, namespace, {}),
                    str(spec.get("priorityClassName") or ""),
                    str(spec.get("preemptionPolicy") or ""),
                )
            template, class_name, policy = base
            labels = self(labels_text) or {}
            found = self.templates[same] = (template.with_labels(labels), class_name, policy)
        return found

    def request(self, text: str | None) -> Resource:
        """Return the pod request in ``text`` plus the one ``pods`` slot every pod takes."""
        found = self.resources.get(text)
        if found is None:
            milli = self(text) or {}
            found = Resource({**{str(k): int(v) for k, v in milli.items()}, PODS: 1000})
            self.resources[text] = found
        return found

    def __call__(self, text: str | None) -> Any:
        try:
            return self._seen[text]
        except KeyError:
            value = json.loads(text) if text else None
            self._seen[text] = value
            return value


# A task's (template, priorityClassName, preemptionPolicy), its pods' limits, and the pk of
# the pod they were read from (the task's first in key order)
FirstOfTask = tuple[tuple[TaskTemplate, str, str], Resource | None, int]
# A TaskInfo's fields as ``pod_tasks.task_fields`` returns them (``pod_tasks.new_task`` names them)
TaskFields = tuple[Any, ...]
# pod pk → (its row, the pristine TaskInfo built from it, the FirstOfTask it used)
TaskMemo = dict[int, tuple[tuple[Any, ...], TaskInfo, FirstOfTask]]
# PodGroup pk → (its row, the pristine JobInfo built from it, without tasks)
JobMemo = dict[int, tuple[tuple[Any, ...], JobInfo]]


clone_task = slot_copier(TaskInfo)
"""Return a copy of a pristine task for one session (its parts shared: the read never changes
them and the engine replaces rather than changes them, as it did with each read's new task)."""

_copy_job = slot_copier(JobInfo)
_copy_condition = slot_copier(PodGroupCondition)


def clone_job(pristine: JobInfo) -> JobInfo:
    """Return a copy of a pristine job (no tasks yet) with containers of its own, as ``_job``
    builds them: the session fills and changes those (conditions, fit errors, the task index)."""
    job = _copy_job(pristine)
    job.task_min_available = dict(pristine.task_min_available)
    job.conditions = [_copy_condition(c) for c in pristine.conditions]
    job.annotations = dict(pristine.annotations)
    job.labels = dict(pristine.labels)
    job.tasks = {}
    job.task_status_index = {}
    job.fit_errors = {}
    return job


def decoder(rows: Rows) -> Decoder:
    """Return the decoder the cache's rows keep between reads, new past a bound of texts."""
    decode = rows.memo.get("decoder")
    if not isinstance(decode, Decoder) or decode.size() > 4 * len(rows.pods) + 20000:
        decode = rows.memo["decoder"] = Decoder()
        rows.memo.pop("tasks", None)  # their templates came from the old one
    decode.new_session()
    return decode


def job_memo(rows: Rows, context: tuple[object, ...]) -> tuple[JobMemo, JobMemo]:
    """Return the last read's PodGroup pk → (row, pristine job) and an empty one to fill;
    the old one empty if ``context`` (priority classes, the default priority) changed."""
    old: JobMemo = rows.memo.get("jobs") or {}
    if rows.memo.get("job_context") != context:
        old = {}
    fresh: JobMemo = {}
    rows.memo["jobs"], rows.memo["job_context"] = fresh, context
    return old, fresh


def task_memo(rows: Rows, context: tuple[object, ...]) -> TaskMemo:
    """Return the cache's pod pk → (row, pristine TaskInfo), emptied if ``context`` changed.

    ``context`` is what a pod's fields depend on besides its row (priority classes, the
    default priority, node names by pk); the memo keeps only the pods still held.
    """
    memo: TaskMemo = rows.memo.get("tasks") or {}
    if rows.memo.get("task_context") != context:
        memo = {}
    elif len(memo) > len(rows.pods):
        memo = {pk: memo[pk] for pk in rows.pods if pk in memo}
    rows.memo["tasks"], rows.memo["task_context"] = memo, context
    return memo


def node_memo(rows: Rows) -> tuple[dict[int, Any], dict[int, Any]]:
    """Return the last read's node pk → (row, parts) and an empty one for this read to fill."""
    old: dict[int, Any] = rows.memo.get("nodes") or {}
    fresh: dict[int, Any] = {}
    rows.memo["nodes"] = fresh
    return old, fresh


def pod_row_memo(rows: Rows) -> tuple[dict[int, Any], dict[int, Any]]:
    """Return the last read's pod pk → (row, ``PodRow``) and an empty one for this read."""
    old: dict[int, Any] = rows.memo.get("pod_rows") or {}
    fresh: dict[int, Any] = {}
    rows.memo["pod_rows"] = fresh
    return old, fresh
