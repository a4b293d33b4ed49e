"""Reads for the console's Kubeflow pages: the training jobs of the jobs list, a job's page.

A training job waits like a VolcanoJob (its PodGroup Pending or Inqueue, its pods without a
node), so its "why is it waiting" is ``queues.why.why_waiting`` over the same rows, given a
phase in Volcano's words: Pending before Running (Created, Restarting), Running after.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.http import Http404

from accounts.roles import can
from console.namespaces import restrict
from core.models import Event, Pod
from queues.models import PodGroup, Queue
from queues.why import WaitReport, cluster_allocatable, why_waiting
from training.frameworks import FRAMEWORKS, Framework
from training.models import TrainingJob
from training.wiring import replicas_of

__all__ = [
    "ReplicaRow",
    "TrainingPage",
    "TrainingRow",
    "framework_by_plural",
    "training_job_list",
    "training_page",
]

LIST_LIMIT = 200


@dataclass(frozen=True, slots=True)
class _Phase:
    """What ``why_waiting`` reads of a job: its phase (Volcano's words) and queue."""

    phase: str
    queue: str
    name: str


# A training job waits in one phase only, in Volcano's words (Created and Restarting read as it).
PENDING = "Pending"


def volcano_phase(job: TrainingJob) -> str:
    """Return the job's state in Volcano's words: Pending until Running, then as it ends."""
    return {"Running": "Running", "Succeeded": "Completed", "Failed": "Failed"}.get(
        job.state, PENDING
    )


@dataclass(slots=True)
class TrainingRow:
    """One training job of the jobs list, with its PodGroup and why it waits."""

    job: TrainingJob
    framework: Framework
    group: PodGroup | None
    wait: WaitReport


def framework_by_plural(plural: str) -> Framework:
    """Return the framework served at ``plural`` (``pytorchjobs``); 404 when none is."""
    for framework in FRAMEWORKS.values():
        if framework.plural == plural:
            return framework
    raise Http404


def training_job_list(
    user: Any, *, namespace: str = "", filters: Mapping[str, str]
) -> list[TrainingRow]:
    """Return the newest training jobs ``user`` may read, filtered as the jobs list is."""
    jobs: list[tuple[TrainingJob, Framework]] = []
    for framework in FRAMEWORKS.values():
        rows = restrict(framework.model._default_manager.all(), user, namespace)
        if queue := filters.get("queue", ""):
            rows = rows.filter(queue=queue)
        if filters.get("mine") and getattr(user, "pk", None) is not None:
            rows = rows.filter(creator=user)
        if text := filters.get("q", "").strip():
            rows = rows.filter(name__icontains=text) | rows.filter(namespace__icontains=text)
        jobs += [(job, framework) for job in rows.order_by("-created_at")[:LIST_LIMIT]]
    if phase := filters.get("phase", ""):
        jobs = [(j, f) for j, f in jobs if volcano_phase(j) == phase]
    jobs.sort(key=lambda item: item[0].created_at, reverse=True)
    jobs = jobs[:LIST_LIMIT]
    keys = {(j.namespace, j.name) for j, _ in jobs}
    groups = {
        (g.namespace, g.name): g
        for g in PodGroup.objects.filter(job__isnull=True, name__in={k[1] for k in keys})
        if (g.namespace, g.name) in keys
    }
    queues = {q.name: q for q in Queue.objects.filter(name__in={j.queue for j, _ in jobs})}
    result = []
    for job, framework in jobs:
        group = groups.get((job.namespace, job.name))
        phase = volcano_phase(job)
        wait = why_waiting(_Phase(phase, job.queue, job.name), waiting=phase == PENDING,
                           group=group, pods=[], queue=queues.get(job.queue))  # fmt: skip
        result.append(TrainingRow(job, framework, group, wait))
    return result


@dataclass(slots=True)
class ReplicaRow:
    """A replica type of the job with its spec and its pods by phase."""

    kind: str
    replicas: int
    restart_policy: str
    phases: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class TrainingPage:
    """Everything a training job's page shows."""

    job: TrainingJob
    framework: Framework
    replicas: list[ReplicaRow]
    pods: list[Pod]
    group: PodGroup | None
    events: list[Event]
    wait: WaitReport
    can_write: bool
    queue: Queue | None
    phase: str


def training_page(user: Any, plural: str, namespace: str, name: str) -> TrainingPage:
    """Return a training job's page for ``user``; 404 when it does not exist or is not readable."""
    framework = framework_by_plural(plural)
    if not can(user, "trainingjobs", write=False, namespace=namespace):
        raise Http404
    job = framework.model._default_manager.filter(namespace=namespace, name=name).first()
    if job is None:
        raise Http404
    group = PodGroup.objects.filter(namespace=namespace, name=name, job__isnull=True).first()
    pods = (
        list(
            Pod.objects.filter(pod_group=group)
            .select_related("node")
            .order_by("task_name", "task_index")
        )
        if group is not None
        else []
    )
    rows = []
    for kind, spec in replicas_of(framework, job):
        row = ReplicaRow(kind, int(spec.get("replicas") or 0), str(spec.get("restartPolicy") or ""))
        for pod in pods:
            if pod.task_name == kind.lower():
                row.phases[pod.phase] = row.phases.get(pod.phase, 0) + 1
        rows.append(row)
    names = [job.name, *(p.name for p in pods)]
    events = list(
        Event.objects.filter(involved_namespace=namespace, involved_name__in=names).order_by(
            "-last_timestamp", "-id"
        )[:200]
    )
    queue = Queue.objects.filter(name=job.queue).first()
    phase = volcano_phase(job)
    wait = why_waiting(_Phase(phase, job.queue, job.name), waiting=phase == PENDING,
                       group=group, pods=pods, queue=queue,
                       cluster=cluster_allocatable() if phase == PENDING else {})  # fmt: skip
    return TrainingPage(
        job=job,
        framework=framework,
        replicas=rows,
        pods=pods,
        group=group,
        events=events,
        wait=wait,
        can_write=can(user, "trainingjobs", write=True, namespace=namespace),
        queue=queue,
        phase=phase,
    )
