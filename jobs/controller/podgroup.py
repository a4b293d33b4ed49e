"""The job's PodGroup: the gang the scheduler admits (Volcano's createOrUpdatePodGroup).

``minMember`` = the job's minAvailable, ``minTaskMember`` = each task's
minAvailable, ``minResources`` = what the first minAvailable pods request
(``calcPGMinResources``), queue and priorityClassName from the job. The
controller creates it while the job is Pending and corrects drift (a scaled
job) afterwards; the scheduler owns its status.

Volcano's PodGroup webhook would refuse to create the group in a queue that is
no longer Open (so a job restarting in a closed queue cannot come back); we
create it anyway and let the scheduler's enqueue refuse it, which keeps the job
Pending with the same outcome and no failing retries.
"""

from __future__ import annotations

from jobs.controller.context import JobContext
from jobs.manifests.pod_template import pod_requests
from jobs.models import PodGroup, PodGroupPhase, TaskSpec

__all__ = ["ensure_pod_group", "min_resources"]


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
    per_pod = {task.name: pod_requests(task.template.get("spec") or {}) for task in ordered}
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


def _min(task: TaskSpec) -> int:
    return task.replicas if task.min_available is None else task.min_available


def ensure_pod_group(ctx: JobContext, *, create: bool) -> None:
    """Create the PodGroup if missing (when ``create``) or bring its spec in line with the job."""
    job = ctx.job
    wanted = {
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
            **wanted,
        )
        ctx.changed = True
        return
    drift = [name for name, value in wanted.items() if getattr(group, name) != value]
    if drift:
        for name in drift:
            setattr(group, name, wanted[name])
        group.save(update_fields=drift)
        ctx.changed = True
