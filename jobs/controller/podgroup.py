"""The job's PodGroup: the gang the scheduler admits (Volcano's createOrUpdatePodGroup).

``minMember`` = the job's minAvailable, ``minTaskMember`` = each task's
minAvailable, ``minResources`` = the quota usage of the first minAvailable pods
(``calcPGMinResources``), queue and priorityClassName from the job.

The quota usage is Kubernetes' (``PodUsageFunc``) as Volcano's ``GetPodQuotaUsage``
extends it, so a ResourceQuota can be checked against a PodGroup: per pod ``pods`` and
``count/pods`` 1; ``cpu``, ``memory``, ``ephemeral-storage`` and ``hugepages-*`` requests
under their plain and ``requests.`` names, with ``limits.`` for the first three; an
extended resource (``nvidia.com/gpu``) under ``requests.<name>`` and its plain name. The
scheduler reads the plain names only (``scheduling_quantities``). One difference: a
container's request defaults to its limit here (Kubernetes' pod defaulting, which the pods
get), where Volcano reads the template's requests as written. The
controller creates it while the job is Pending and corrects drift (a scaled
job) afterwards; the scheduler owns its status.

Volcano's PodGroup webhook would refuse to create the group in a queue that is
no longer Open (so a job restarting in a closed queue cannot come back); we
create it anyway and let the scheduler's enqueue refuse it, which keeps the job
Pending with the same outcome and no failing retries.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from core.events import record_event
from core.manifests.pod_template import pod_limits, pod_requests
from core.models import Event, EventType
from jobs.controller.context import JobContext
from jobs.controller.sub_groups import (
    pod_group_network_topology,
    sub_group_policies,
    updated_sub_group_policies,
)
from jobs.models import TaskSpec
from queues.models import PodGroup, PodGroupPhase

__all__ = [
    "PENDING_REASON",
    "ensure_pod_group",
    "min_resources",
    "pod_quota_usage",
    "record_pod_group_pending",
]

PENDING_REASON = "PodGroupPending"  # the job's warning while its PodGroup cannot be scheduled


def _task_priority(task: TaskSpec, classes: dict[str, int]) -> int:
    name = (task.template.get("spec") or {}).get("priorityClassName") or ""
    return classes.get(name, 0)


def min_resources(
    min_available: int, tasks: list[TaskSpec], classes: dict[str, int]
) -> dict[str, int]:
    """Return the resources of the pods that make the gang (milli-units per resource).

    Tasks go highest PriorityClass first. When the job's minAvailable is below
    the sum of the tasks' minAvailable, the first minAvailable pods in that order
    count; otherwise every task's own minimum first, then more replicas of the
    highest-priority tasks until minAvailable pods are counted.
    """
    ordered = sorted(tasks, key=lambda task: -_task_priority(task, classes))
    per_pod = {task.name: pod_quota_usage(task.template.get("spec") or {}) for task in ordered}
    counts: dict[str, int] = {}
    task_minimum = sum(_min(task) for task in ordered)
    left = min_available
    if min_available < task_minimum:
        for task in ordered:
            take = min(task.replicas, left)
            counts[task.name], left = take, left - take
    else:
        for task in ordered:
            counts[task.name] = _min(task)
            left -= _min(task)
        for task in ordered:
            take = min(task.replicas - counts[task.name], max(left, 0))
            counts[task.name] += take
            left -= take
    total: dict[str, int] = {}
    for name, count in counts.items():
        for resource, milli in per_pod[name].items():
            total[resource] = total.get(resource, 0) + milli * count
    return {resource: milli for resource, milli in sorted(total.items()) if milli}


_WITH_LIMITS = ("cpu", "memory", "ephemeral-storage")
ONE = 1000  # one pod, in milli-units


def pod_quota_usage(spec: dict[str, Any]) -> dict[str, int]:
    """Return what one pod of ``spec`` counts against a ResourceQuota (see the module doc)."""
    requests, limits = pod_requests(spec), pod_limits(spec)
    usage = {"pods": ONE, "count/pods": ONE}
    for name, milli in requests.items():
        native = "/" not in name or "kubernetes.io/" in name
        if name in _WITH_LIMITS or name.startswith("hugepages-") or not native:
            usage[name] = usage[f"requests.{name}"] = milli
    for name in _WITH_LIMITS:
        if name in limits:
            usage[f"limits.{name}"] = limits[name]
    return usage


def _min(task: TaskSpec) -> int:
    return task.replicas if task.min_available is None else task.min_available


def ensure_pod_group(ctx: JobContext, *, create: bool) -> None:
    """Create the PodGroup if missing (when ``create``) or bring its spec in line with the job.

    The job's networkTopology is copied when the group is created only (as Volcano does; the
    job's own may not change); the partitioned tasks' subGroupPolicy follows the job.
    """
    job = ctx.job
    wanted: dict[str, Any] = {
        "min_member": job.min_available,
        "min_task_member": {task.name: _min(task) for task in ctx.tasks},
        "min_resources": min_resources(job.min_available, ctx.tasks, ctx.classes or {}),
        "priority_class_name": job.priority_class_name,
    }
    group = ctx.pod_group
    if group is None:
        if not create:
            return
        ctx.pod_group = PodGroup.objects.create(
            namespace=job.namespace,
            name=ctx.pod_group_name,
            job=job,
            queue=job.queue,
            phase=PodGroupPhase.PENDING,
            labels=dict(job.labels),
            annotations=dict(job.annotations),
            network_topology=pod_group_network_topology(job.network_topology),
            sub_group_policy=sub_group_policies(ctx.tasks),
            **wanted,
        )
        ctx.changed = True
        return
    policies = updated_sub_group_policies(group.sub_group_policy or [], ctx.tasks)
    if policies is not None:
        wanted["sub_group_policy"] = policies
    drift = [name for name, value in wanted.items() if getattr(group, name) != value]
    if drift:
        for name in drift:
            setattr(group, name, wanted[name])
        group.save(update_fields=drift)
        ctx.changed = True


def _stamp(condition: dict[str, Any]) -> dt.datetime:
    try:
        return dt.datetime.fromisoformat(str(condition.get("lastTransitionTime", "")))
    except ValueError:
        return dt.datetime.min.replace(tzinfo=dt.UTC)


def _latest_true_condition(conditions: list[dict[str, Any]]) -> dict[str, Any] | None:
    true = [condition for condition in conditions if condition.get("status") == "True"]
    return max(true, key=_stamp, default=None)


def record_pod_group_pending(ctx: JobContext) -> None:
    """Warn ``PodGroupPending`` on the job while its PodGroup's latest condition is not Scheduled.

    Volcano's ``recordPodGroupEvent``, with its words: "PodGroup <ns>:<job> unschedulable,
    reason: <the condition's message>". Volcano records it on every sync and its recorder
    counts the repeats; ours records each distinct message once while the event lives (a
    level-triggered controller syncs far more often than Volcano's, so a count would say
    nothing), and again after the event expired if the group is still unschedulable.
    """
    group, job = ctx.pod_group, ctx.job
    if group is None:
        return
    latest = _latest_true_condition(group.conditions or [])
    if latest is None or latest.get("type") == "Scheduled":
        return
    kind = str(latest.get("type", "")).lower()
    message = f"PodGroup {job.namespace}:{job.name} {kind}, reason: {latest.get('message', '')}"
    if ctx.pending_warnings is not None:
        if message in ctx.pending_warnings:
            return
    elif Event.objects.filter(
        involved_kind="Job",
        involved_namespace=job.namespace,
        involved_name=job.name,
        involved_uid=job.uid,
        reason=PENDING_REASON,
        message=message,
    ).exists():
        return
    record_event(
        job,
        kind="Job",
        reason=PENDING_REASON,
        message=message,
        now=ctx.now,
        event_type=EventType.WARNING,
        known=ctx.events,
    )
