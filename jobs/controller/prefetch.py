"""The rows a reconcile pass reads for its jobs: one job's, or a whole batch's in a few queries.

A pass over the jobs that changed (a burst of 1,000 new jobs, say) used to read each job's row,
tasks, pods and PodGroup one job at a time: four queries per job, each compiled by the ORM, most
of a pass's time. ``read_batch`` locks a batch of jobs in one query and reads their tasks, pods,
PodGroups and Events in one query each, inside the caller's transaction
and after the lock, so what a job's reconcile sees is as fresh as if it had read it alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.models import Event, Pod
from jobs.controller.podgroup import PENDING_REASON
from jobs.models import Job, TaskSpec
from queues.models import PodGroup

__all__ = ["BATCH", "Batch", "JobRows", "read_batch"]

BATCH = 250  # jobs locked and read together: one transaction, a savepoint per job


@dataclass
class JobRows:
    """A job's tasks (in index order), pods and PodGroup as one pass read them."""

    tasks: list[TaskSpec]
    pods: list[Pod]
    group: PodGroup | None

    @classmethod
    def read(cls, job: Job, tasks: list[TaskSpec] | None = None) -> JobRows:
        """Return the rows of one job (three queries; two when ``tasks`` are known)."""
        if tasks is None:
            tasks = list(TaskSpec.objects.filter(job=job).order_by("index"))
        groups = PodGroup.objects.filter(namespace=job.namespace, name=group_name(job))
        group = next(iter(groups.order_by()[:1]), None)
        return cls(tasks, list(Pod.objects.filter(job=job).order_by()), group)


def group_name(job: Job) -> str:
    """Return Volcano's name for the job's PodGroup: ``<job>-<uid>``."""
    return f"{job.name}-{job.uid}"


@dataclass
class Batch:
    """The locked rows of a batch of jobs, by job pk (a job deleted meanwhile is missing)."""

    jobs: dict[int, Job] = field(default_factory=dict)
    rows: dict[int, JobRows] = field(default_factory=dict)
    pending_warnings: dict[int, set[str]] = field(default_factory=dict)
    events: dict[int, list[Event]] = field(default_factory=dict)  # about each job, by name


def read_batch(pks: list[int]) -> Batch:
    """Lock the jobs ``pks`` (in pk order) and read their rows and Events: five queries, whatever
    their count.

    Call it inside a transaction: the locks and what was read hold until it ends.
    """
    batch = Batch()
    locked = Job.objects.select_for_update().filter(pk__in=pks).order_by("pk")
    batch.jobs = {job.pk: job for job in locked}
    found = list(batch.jobs)
    if not found:
        return batch
    tasks: dict[int, list[TaskSpec]] = {pk: [] for pk in found}
    for task in TaskSpec.objects.filter(job_id__in=found).order_by("job_id", "index"):
        tasks[task.job_id].append(task)
    pods: dict[int, list[Pod]] = {pk: [] for pk in found}
    for pod in Pod.objects.filter(job_id__in=found).order_by():
        pods[pod.job_id].append(pod)  # type: ignore[index]  # job_id is not None here
    by_group = {(job.namespace, group_name(job)): pk for pk, job in batch.jobs.items()}
    groups: dict[int, PodGroup] = {}
    names = sorted({name for _namespace, name in by_group})
    for group in PodGroup.objects.filter(name__in=names).order_by():
        pk = by_group.get((group.namespace, group.name))
        if pk is not None:
            groups.setdefault(pk, group)
    batch.rows = {pk: JobRows(tasks[pk], pods[pk], groups.get(pk)) for pk in found}
    _job_events(batch)
    return batch


def _job_events(batch: Batch) -> None:
    """Read every Event about the batch's jobs by name (one query): each job's own, and a
    former job's of the same name (``record_event`` matches by name, then compares uids).

    They stand in for ``record_event``'s own look-up, one query per event recorded, and give
    the messages of each job's ``PodGroupPending`` warnings (1,000 jobs submitted at once all
    wait one session and warn once each).
    """
    by_name = {(job.namespace, job.name): pk for pk, job in batch.jobs.items()}
    batch.events = {pk: [] for pk in batch.jobs}
    batch.pending_warnings = {pk: set() for pk in batch.jobs}
    names = sorted({name for _namespace, name in by_name})
    for event in Event.objects.filter(involved_kind="Job", involved_name__in=names).order_by():
        pk = by_name.get((event.involved_namespace, event.involved_name))
        if pk is None:
            continue
        batch.events[pk].append(event)
        if event.reason == PENDING_REASON and event.involved_uid == batch.jobs[pk].uid:
            batch.pending_warnings[pk].add(event.message)
