"""Rendering a task replica into a Pod row (Volcano's ``createJobPod``), plugins included.

Name ``<job>-<task>-<index>``; the job's identity, queue, version and retry
count as annotations; schedulerName and priorityClassName fall back to the
job's; the job's volumes become claims mounted in every container. Labels are
Volcano's (``volcano.sh/task-index`` among them; the scheduler's cache leaves the
index out so that the replicas of a task share one template); the index is also
the ``task_index`` column, and the ``volcano.sh/task-index`` annotation a dump writes.
"""

from __future__ import annotations

import copy

from core.events import record_event
from core.manifests.pod_template import pod_requests
from core.models import Event, EventType, Pod, PodPhase, stamp_class
from jobs.controller.context import JOB_VERSION, JobContext
from jobs.controller.plugins import apply_plugins
from jobs.controller.sub_groups import PARTITION_ID, partition_id
from jobs.models import TaskSpec

__all__ = ["pod_name", "render_pod", "warn_unclaimed_volumes"]

_COLUMNS = ("nodeName", "priority", "schedulerName")
# Job annotations Volcano copies onto its pods (preemptable, revocable zone, JDB budgets).
COPIED_JOB_ANNOTATIONS = (
    "volcano.sh/preemptable",
    "volcano.sh/revocable-zone",
    "volcano.sh/jdb-min-available",
    "volcano.sh/jdb-max-unavailable",
)


def pod_name(job_name: str, task_name: str, index: int) -> str:
    """Return Volcano's pod name for replica ``index`` of a task."""
    return f"{job_name}-{task_name}-{index}"


def _priority(ctx: JobContext, class_name: str) -> tuple[int, bool]:
    """Return the priority for ``class_name`` (else the global default, else 0) and if found."""
    classes = ctx.classes or {}
    if class_name:
        return (classes[class_name], True) if class_name in classes else (0, False)
    return ctx.default_priority, True


def render_pod(ctx: JobContext, task: TaskSpec, index: int) -> tuple[Pod, bool]:
    """Return an unsaved Pod for replica ``index`` of ``task`` and whether its class exists."""
    job = ctx.job
    template = task.template or {}
    metadata = template.get("metadata") or {}
    spec = copy.deepcopy(template.get("spec") or {})
    scheduler_name = spec.get("schedulerName") or job.scheduler_name
    if job.priority_class_name:
        spec.setdefault("priorityClassName", job.priority_class_name)
    priority, class_found = _priority(ctx, spec.get("priorityClassName") or "")
    stamp_class(spec, ctx.class_table())  # what Kubernetes' Priority admission writes
    for key in _COLUMNS:
        spec.pop(key, None)
    labels = dict(metadata.get("labels") or {})
    labels.update(
        {
            "volcano.sh/job-name": job.name,
            "volcano.sh/job-namespace": job.namespace,
            "volcano.sh/queue-name": job.queue,
            "volcano.sh/task-spec": task.name,
            "volcano.sh/task-index": str(index),
        }
    )
    if (partition := partition_id(task, index)) is not None:
        labels[PARTITION_ID] = partition
    annotations = dict(metadata.get("annotations") or {})
    annotations.update(
        {
            "volcano.sh/job-name": job.name,
            "volcano.sh/queue-name": job.queue,
            JOB_VERSION: str(job.version),
            "volcano.sh/template-uid": f"{job.name}-{task.name}",
            "volcano.sh/job-retry-count": str(job.retry_count),
        }
    )
    for key in COPIED_JOB_ANNOTATIONS:
        if key in job.annotations:
            annotations.setdefault(key, job.annotations[key])
    pod = Pod(
        namespace=job.namespace,
        name=pod_name(job.name, task.name, index),
        job=job,
        task_name=task.name,
        task_index=index,
        pod_group=ctx.pod_group,
        spec=spec,
        priority=priority,
        scheduler_name=scheduler_name,
        phase=PodPhase.PENDING,
        labels=labels,
        annotations=annotations,
    )
    _mount_job_volumes(ctx, pod)
    apply_plugins(job, ctx.tasks, pod)
    pod.requests = pod_requests(pod.spec)
    pod.cpu_milli = pod.requests.get("cpu", 0)
    pod.memory_milli = pod.requests.get("memory", 0)
    pod.gpu_milli = pod.requests.get("nvidia.com/gpu", 0)
    return pod, class_found


def claim_name(job_name: str, index: int, volume: dict[str, object]) -> str:
    """Return the claim a job volume uses: its ``volumeClaimName`` or a generated one."""
    return str(volume.get("volumeClaimName") or f"{job_name}-volume-{index}")


def _mount_job_volumes(ctx: JobContext, pod: Pod) -> None:
    for index, volume in enumerate(ctx.job.volumes):
        claim = claim_name(ctx.job.name, index, volume)
        pod.spec.setdefault("volumes", []).append(
            {"name": claim, "persistentVolumeClaim": {"claimName": claim}}
        )
        for group in ("containers", "initContainers"):
            for container in pod.spec.get(group) or []:
                container.setdefault("volumeMounts", []).append(
                    {"name": claim, "mountPath": volume.get("mountPath", "")}
                )


def warn_unclaimed_volumes(ctx: JobContext) -> None:
    """Warn once per job about volumes with neither ``volumeClaim`` nor ``volumeClaimName``.

    Volcano's webhook refuses them; admission here accepts them (see
    ``jobs.admission.policies.validate_volumes``), so the job says what Volcano would.
    """
    job = ctx.job
    missing = [
        f"spec.volumes[{index}] ({volume.get('mountPath', '')})"
        for index, volume in enumerate(job.volumes)
        if not volume.get("volumeClaimName") and volume.get("volumeClaim") is None
    ]
    if not missing:
        return
    reason = "VolumeClaimMissing"
    if Event.objects.filter(
        involved_kind="Job", involved_name=job.name, involved_uid=job.uid, reason=reason
    ).exists():
        return
    record_event(
        job,
        kind="Job",
        reason=reason,
        message=(
            f"either VolumeClaim or VolumeClaimName must be specified: {', '.join(missing)}; "
            f"Volcano refuses such a job, here a claim named {job.name}-volume-<index> is mounted"
        ),
        now=ctx.now,
        event_type=EventType.WARNING,
    )
