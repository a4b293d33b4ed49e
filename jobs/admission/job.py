"""Job admission: Volcano's mutating and validating webhooks, its VAP and CRD rules for Job.

``default_job`` fills Volcano's defaults; ``validate_job`` (create) and
``validate_job_update`` return every violation; ``admit_job`` does both for any
entry point and raises ``AdmissionError`` naming every bad field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.db.models import Sum

from apis.errors import ManifestError
from core.admission.template import qualified_name_error, validate_template
from jobs.admission.partition import partition_min_available, validate_partition_policy
from jobs.admission.policies import (
    validate_depends_on,
    validate_plugins,
    validate_policies,
    validate_volumes,
)
from jobs.manifests.job import JobKind
from jobs.models import Job, TaskSpec
from kube.admission_causes import Causes
from kube.manifest_kinds import Loaded
from kube.validators import dns1123_label_error
from queues.admission.network_topology import validate_network_topology, validate_tier_exclusive
from queues.models import Queue, QueueState

__all__ = ["admit_job", "default_job", "validate_job", "validate_job_update"]

DEFAULT_QUEUE = "default"
DEFAULT_SCHEDULER = "volcano"
DEFAULT_MAX_RETRY = 3
ROOT_QUEUE = "root"
# Plugins that need others (Volcano's mutating webhook adds them).
IMPLIED_PLUGINS = {
    "tensorflow": ("svc",),
    "pytorch": ("svc",),
    "ray": ("svc",),
    "mpi": ("svc", "ssh"),
}
# What an update may change (Volcano's update webhook message names exactly these).
UPDATABLE_SPEC = ("minAvailable", "priorityClassName")
UPDATABLE_TASK = ("replicas", "minAvailable")


def default_job(job: Job, tasks: list[TaskSpec]) -> None:
    """Fill Volcano's defaults into ``job`` and its ``tasks`` (in place)."""
    job.queue = job.queue or DEFAULT_QUEUE
    job.scheduler_name = job.scheduler_name or DEFAULT_SCHEDULER
    # Volcano's webhook: maxRetry 0 means "not set" and becomes 3.
    job.max_retry = job.max_retry or DEFAULT_MAX_RETRY
    for index, task in enumerate(tasks):
        task.index = index
        task.name = task.name or f"default{index}"
        if task.min_available is None:
            task.min_available = partition_min_available(task)
        task.max_retry = task.max_retry or DEFAULT_MAX_RETRY
    if not job.min_available:  # after the tasks', as Volcano's webhook patches them first
        job.min_available = sum(task.min_available or 0 for task in tasks)
    plugins = dict(job.plugins)
    for name, implied in IMPLIED_PLUGINS.items():
        if name in plugins:
            for extra in implied:
                plugins.setdefault(extra, [])
    job.plugins = plugins


def validate_job(job: Job, tasks: list[TaskSpec]) -> Causes:
    """Return every create-time violation of ``job`` (already defaulted)."""
    causes = Causes()
    if error := qualified_name_error(job.name):
        causes.invalid("metadata.name", f"{job.name!r}: {error}")
    if not tasks:
        causes.required("spec.tasks", "No task specified in job spec")
    _validate_numbers(job, tasks, causes)
    names: dict[str, int] = {}
    for index, task in enumerate(tasks):
        at = f"spec.tasks[{index}]"
        if error := dns1123_label_error(task.name):
            causes.invalid(f"{at}.name", f"{task.name!r}: {error}")
        elif task.name in names:
            causes.duplicate(f"{at}.name", f"duplicated task name {task.name}")
        else:
            names[task.name] = index
            last_pod = f"{job.name}-{task.name}-{max(task.replicas - 1, 0)}"
            if error := qualified_name_error(last_pod):
                causes.invalid(f"{at}.name", f"pod name {last_pod!r} would be invalid: {error}")
        validate_template(task.template, task.topology_policy, at, causes)
        validate_policies(task.policies, f"{at}.policies", causes)
    validate_policies(job.policies, "spec.policies", causes)
    validate_plugins(job.plugins, [task.name for task in tasks], causes)
    validate_volumes(job.volumes, causes)
    validate_depends_on([task.depends_on for task in tasks], [task.name for task in tasks], causes)
    _validate_queue(job.queue, causes)
    return causes


def _validate_numbers(job: Job, tasks: list[TaskSpec], causes: Causes) -> None:
    """The rules re-run on every update: CRD minimums, the webhook's sums, the topology's."""
    total = 0
    for index, task in enumerate(tasks):
        at = f"spec.tasks[{index}]"
        if task.replicas < 0:
            causes.invalid(f"{at}.replicas", f"{task.replicas}: must be greater than or equal to 0")
        total += max(task.replicas, 0)
        if task.min_available is not None:
            if task.min_available < 0:
                causes.invalid(f"{at}.minAvailable", "must be greater than or equal to 0")
            elif task.min_available > task.replicas:
                causes.invalid(
                    f"{at}.minAvailable",
                    f"{task.min_available}: 'minAvailable' is greater than 'replicas' "
                    f"({task.replicas}) in task: {task.name}, job: {job.name}",
                )
        if task.max_retry is not None and task.max_retry < 0:
            causes.invalid(f"{at}.maxRetry", "must be greater than or equal to 0")
        validate_partition_policy(job, task, at, causes)
    _validate_pod_caps(job, tasks, total, causes)
    if job.min_available < 0:
        causes.invalid("spec.minAvailable", "job 'minAvailable' must be >= 0")
    elif tasks and job.min_available > total:
        causes.invalid(
            "spec.minAvailable",
            f"{job.min_available}: job 'minAvailable' should not be greater than total "
            f"replicas in tasks ({total})",
        )
    if job.max_retry < 0:
        causes.invalid("spec.maxRetry", "'maxRetry' cannot be less than zero")
    if job.ttl_seconds_after_finished is not None and job.ttl_seconds_after_finished < 0:
        causes.invalid(
            "spec.ttlSecondsAfterFinished", "'ttlSecondsAfterFinished' cannot be less than zero"
        )
    if job.min_success is not None and job.min_success < 1:
        causes.invalid("spec.minSuccess", "must be greater than or equal to 1")
    topology = validate_network_topology(job.network_topology, "spec.networkTopology", causes)
    validate_tier_exclusive(topology, "spec.networkTopology", causes)


def _validate_pod_caps(job: Job, tasks: list[TaskSpec], total: int, causes: Causes) -> None:
    """Refuse more pods than the caps allow (``VOLCANO_MAX_PODS_PER_JOB`` / ``_PER_NAMESPACE``).

    Why: ``replicas: 2147483647`` is a valid integer, and the controller would try to create
    two billion pods. The first task that crosses the cap is named.
    """
    per_job = int(getattr(settings, "VOLCANO_MAX_PODS_PER_JOB", 50_000))
    running = 0
    for index, task in enumerate(tasks):
        running += max(task.replicas, 0)
        if running > per_job:
            causes.invalid(f"spec.tasks[{index}].replicas",
                           f"{task.replicas}: the job would have {running} pods, more than the "
                           f"{per_job} a job may have")  # fmt: skip
            return
    per_namespace = int(getattr(settings, "VOLCANO_MAX_PODS_PER_NAMESPACE", 0))
    if per_namespace <= 0:  # off by default: summing a namespace's replicas costs a scan
        return
    others = (
        TaskSpec.objects.filter(job__namespace=job.namespace)
        .exclude(job__name=job.name)
        .aggregate(n=Sum("replicas"))["n"]
        or 0
    )
    if others + total > per_namespace and tasks:
        causes.invalid(f"spec.tasks[{len(tasks) - 1}].replicas",
                       f"the namespace {job.namespace} would hold {others + total} pods, more "
                       f"than its {per_namespace}")  # fmt: skip


def _validate_queue(name: str, causes: Causes) -> None:
    """A job goes only into an existing, Open, leaf queue that is not ``root``."""
    if name == ROOT_QUEUE:
        causes.forbidden("spec.queue", "can not submit job to root queue")
        return
    queue = Queue.objects.filter(name=name).first()
    if queue is None:
        causes.not_found("spec.queue", f"unable to find job queue: {name}")
        return
    if queue.state != QueueState.OPEN:
        causes.forbidden(
            "spec.queue",
            f"can only submit job to queue with state `Open`, queue `{name}` status is "
            f"`{queue.state}`",
        )
    if Queue.objects.filter(parent=name).exists():
        children = Queue.objects.filter(parent=name).count()
        causes.forbidden(
            "spec.queue",
            f"can only submit job to leaf queue, queue `{name}` has {children} child queues",
        )


def validate_job_update(
    job: Job, tasks: list[TaskSpec], old: Job, old_tasks: list[TaskSpec]
) -> Causes:
    """Return every violation of updating ``old`` to ``job``: only the scaling fields may change."""
    causes = Causes()
    if len(tasks) != len(old_tasks):
        causes.forbidden("spec.tasks", "job updates may not add or remove tasks")
    kind = JobKind()
    new_spec, old_spec = kind.write(job, tasks)["spec"], kind.write(old, old_tasks)["spec"]
    for key in sorted({*new_spec, *old_spec} - {"tasks", *UPDATABLE_SPEC}):
        if new_spec.get(key) != old_spec.get(key):
            causes.forbidden(f"spec.{key}", _UPDATE_MESSAGE)
    for index, (new_task, old_task) in enumerate(
        zip(new_spec["tasks"], old_spec["tasks"], strict=False)
    ):
        for key in sorted({*new_task, *old_task} - set(UPDATABLE_TASK)):
            if new_task.get(key) != old_task.get(key):
                causes.forbidden(f"spec.tasks[{index}].{key}", _UPDATE_MESSAGE)
    _validate_numbers(job, tasks, causes)
    return causes


_UPDATE_MESSAGE = (
    "job updates may not change fields other than `minAvailable`, `tasks[*].replicas`, "
    "`tasks[*].minAvailable` and `priorityClassName` under spec"
)


def admit_job(
    obj: Mapping[str, Any] | Loaded | Job,
    *,
    tasks: list[TaskSpec] | None = None,
    old: Job | None = None,
) -> Loaded:
    """Return ``obj`` (a manifest, a loaded manifest, or a Job with ``tasks``) defaulted and valid.

    ``old`` is the stored job an update replaces (its tasks are read from the
    database). Raises ``AdmissionError`` listing every violation; nothing is written.
    """
    loaded = _as_loaded(obj, tasks)
    job: Job = loaded.instance
    default_job(job, loaded.children)
    if old is None:
        causes = validate_job(job, loaded.children)
    else:
        causes = validate_job_update(job, loaded.children, old, list(old.tasks.all()))
    causes.raise_if_any(kind="Job", name=job.name)
    return loaded


def _as_loaded(obj: Mapping[str, Any] | Loaded | Job, tasks: list[TaskSpec] | None) -> Loaded:
    if isinstance(obj, Loaded):
        return obj
    if isinstance(obj, Job):
        if tasks is None:
            tasks = [] if obj._state.adding else list(obj.tasks.all())
        return Loaded(JobKind(), obj, children=tasks)
    try:
        return JobKind().load(obj)
    except ManifestError as exc:
        causes = Causes()
        causes.invalid(exc.field, exc.message)
        causes.raise_if_any(kind="Job")
        raise  # unreachable: raise_if_any raised
