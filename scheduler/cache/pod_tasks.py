"""A pod row → the engine's ``TaskInfo``, its fields reused while the row is unchanged.

The snapshot reads every pod of a live job (``snapshot._read``); this module turns one row
(``PodColumns``) into a task. What it works out is kept in the row memo (``row_memo``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from scheduler.cache.pod_fields import (
    aware,
    pod_spec_limits,
    pod_status,
    scheduled_at,
)
from scheduler.cache.row_memo import Decoder, FirstOfTask, TaskFields, TaskMemo, clone_task
from scheduler.cache.slot_objects import tuple_maker
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.plugins.cdp import COOLDOWN_TIME_KEY

__all__ = ["TASK_FIELDS", "PodColumns", "new_task", "pod_task", "task_fields"]


class PodColumns(NamedTuple):
    """One row of the pod read, its columns named in the order ``_POD_SQL`` selects them.

    Only a type: rows stay the plain tuples the cursor returns (no object per pod at 50,000
    pods), and the readers unpack them into these names, which mypy checks against this list.
    """

    pk: int
    namespace: str
    resource_version: int
    pod_group_pk: int | None
    name: str
    node_pk: int | None
    phase: str
    deleting: int  # 1 while deletionTimestamp is set
    priority: int | None
    task_name: str
    created: Any  # SQLite: zoned ISO text; PostgreSQL: an aware datetime (``_aware``)
    cpu: int  # milli-units, as the pod row keeps them beside ``requests``
    memory: int
    gpu: int
    requests: str | None  # JSON text, decoded once per distinct text
    spec: str | None
    labels: str | None  # without the task-index label (``_labels_but_index``)
    annotations: str | None
    conditions: str | None  # status.conditions, decoded on demand (``PodRow``)
    nominated: str  # status.nominatedNodeName


def pod_task(
    row: PodColumns,
    decode: Decoder,
    node_names: dict[int, str],
    classes: dict[str, int],
    default_priority: int,
    memo: TaskMemo,
    keep: bool = True,
) -> TaskInfo:
    """Return the pod of ``row`` as a task; its fields are reused while its row is unchanged.

    ``memo`` is the row cache's (pod pk → its row, pristine task and ``FirstOfTask``): a row
    the cache still holds is the very tuple the task came from, and the session gets a copy. Pods of one task take their template
    and limits from the task's first pod in key order (``decode.by_task``), so the reuse also
    needs that first pod to be the same one as when the fields were worked out.
    """
    pk, group_pk, task_name, labels_text = row[0], row[3], row[9], row[16]
    key: tuple[object, ...] = (
        (group_pk, task_name, labels_text)
        if group_pk and task_name
        else (row[1], row[15], labels_text)  # namespace, spec
    )
    first = decode.by_task.get(key)
    found = memo.get(pk)
    if found is not None and found[0] is row:
        source = found[2][2]
        if first is None and source == pk:
            decode.by_task[key] = found[2]
            return clone_task(found[1])
        if first is not None and first[2] == source:
            return clone_task(found[1])
    if first is None:
        ns, spec_text = row[1], row[15]
        first = decode.by_task[key] = (
            decode.template(ns, spec_text, labels_text),
            pod_spec_limits(decode(spec_text)),
            pk,
        )
    task = new_task(task_fields(row, decode, node_names, classes, default_priority, first))
    if not keep:
        return task
    memo[pk] = (row, task, first)
    return clone_task(task)


def task_fields(
    row: PodColumns,
    decode: Decoder,
    node_names: dict[int, str],
    classes: dict[str, int],
    default_priority: int,
    first: FirstOfTask,
) -> TaskFields:
    (_pk, ns, _version, _group_pk, name, node_pk, phase, deleting, prio, task_name, created, _cpu,
     _memory, _gpu, requests_text, spec_text, _labels_text, annotations_text, conditions_text,
     nominated) = row  # fmt: skip
    (template, class_name, preemption_policy), limits, _ = first
    annotations, devices, numa, preemptable, gated = decode.pod_parts(spec_text, annotations_text)
    resreq = decode.request(requests_text)
    # In ``TASK_FIELDS``' order: name, namespace, job, resreq, limits, status, node_name,
    # priority, role, preemptable, preemption_policy, priority_class_name, nominated_node_name,
    # creation_timestamp, annotations, template, device_containers, numa, scheduling_gated,
    # scheduled_at.
    return (
        name,
        ns,
        "",
        resreq,
        limits,
        pod_status(phase, node_pk is not None, bool(deleting)),
        node_names.get(node_pk, "") if node_pk is not None else "",
        prio or classes.get(class_name, default_priority),
        task_name,
        preemptable,
        preemption_policy,
        class_name,
        # The node a previous session pipelined the pod onto (status.nominatedNodeName): its
        # reservation. Allocate tries that node first and preempt does not evict again for a
        # pod whose nominated node still has its victims terminating, as in Volcano.
        nominated or "",
        aware(created),
        annotations,
        template,
        devices,
        numa,
        gated,
        # cdp's cool-down start: decoded only for the pods cdp reads it of (two dict lookups for
        # every other pod, on dicts the read decodes anyway).
        scheduled_at(conditions_text)
        if conditions_text
        and (COOLDOWN_TIME_KEY in template.labels or COOLDOWN_TIME_KEY in annotations)
        else None,
    )


# The TaskInfo fields ``task_fields`` returns, in its order.
TASK_FIELDS = (
    "name", "namespace", "job", "resreq", "limits", "status", "node_name", "priority", "role",
    "preemptable", "preemption_policy", "priority_class_name", "nominated_node_name",
    "creation_timestamp", "annotations", "template", "device_containers", "numa",
    "scheduling_gated", "scheduled_at",
)  # fmt: skip

new_task = tuple_maker(TaskInfo, TASK_FIELDS)
"""Return a TaskInfo of the fields ``task_fields`` worked out, the others at their defaults."""
