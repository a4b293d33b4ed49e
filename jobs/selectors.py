"""Reads for the job console's pages (HackSoft's selectors): the jobs list, a job's page, the
waiting line of a queue and its jobs by phase (the queue page's fragment). Each returns what a
page shows in a fixed number of queries, whatever the number of rows, and only what the user
may read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.http import Http404

from accounts.models import AuditEntry
from accounts.roles import can
from console.namespaces import restrict
from core.models import Event, Pod, PriorityClass
from jobs.models import WAITING_PHASES, Job, TaskSpec
from jobs.pod_lists import IssueRow, pod_issue_rollup
from queues.models import PodGroup, Queue
from queues.why import QUOTA_REFUSAL, WaitReport, cluster_allocatable, quota_refusals, why_waiting

__all__ = [
    "JOB_GROUPS",
    "JOB_SORTS",
    "TERMINAL_PHASES",
    "JobPage",
    "LineEntry",
    "TaskRow",
    "job_deletion",
    "job_group_key",
    "job_groups",
    "job_list",
    "job_page",
    "queue_job_count",
    "queue_jobs_by_phase",
    "queue_line",
    "queue_waiting_line",
    "wait_reports",
]

TERMINAL_PHASES = frozenset({"Completed", "Aborted", "Terminated", "Failed"})
# vcctl's columns, each sorting on indexed or cheap fields, ending on a unique one.
JOB_SORTS: Mapping[str, tuple[str, ...]] = {
    "name": ("name", "namespace", "id"),
    "created": ("created_at", "id"),
    "phase": ("phase", "name", "id"),
    "queue": ("queue", "name", "id"),
    "min": ("min_available", "name", "id"),
    "pending": ("pending", "name", "id"),
    "running": ("running", "name", "id"),
    "succeeded": ("succeeded", "name", "id"),
    "failed": ("failed", "name", "id"),
    "retries": ("retry_count", "name", "id"),
}


def job_list(user: Any, *, namespace: str = "", filters: Mapping[str, str]) -> QuerySet[Job]:
    """Return the jobs ``user`` may read, narrowed by the list's filters (unordered)."""
    jobs = restrict(Job.objects.all(), user, namespace)
    if queue := filters.get("queue", ""):
        jobs = jobs.filter(queue=queue)
    if phase := filters.get("phase", ""):
        jobs = jobs.filter(phase="" if phase == "New" else phase)
    if filters.get("mine") and getattr(user, "pk", None) is not None:
        jobs = jobs.filter(creator=user)
    if text := filters.get("q", "").strip():
        jobs = jobs.filter(Q(name__icontains=text) | Q(namespace__icontains=text))
    return jobs


# What the jobs list can group by (``?group=``): the column each ordering starts with.
JOB_GROUPS: Mapping[str, tuple[str, ...]] = {
    "queue": ("queue",),
    "namespace": ("namespace",),
    "phase": ("phase",),
    "owner": ("creator__username",),
}
NO_OWNER = "—"


def job_group_key(job: Job, by: str) -> str:
    """Return the group ``job`` falls in: its queue, namespace, phase or owner.

    The owner is who submitted it when the console recorded that, else what owns it in the
    cluster (``ownerReferences``: a JobFlow, a CronJob) as ``Kind/name``, else "—".
    """
    if by == "owner":
        if job.creator_id is not None and job.creator is not None:
            return str(job.creator.get_username())
        for ref in job.owner_references or []:
            if isinstance(ref, dict) and ref.get("kind"):
                return f"{ref['kind']}/{ref.get('name', '')}"
        return NO_OWNER
    if by == "phase":
        return job.phase or "New"
    return str(getattr(job, by))


def job_groups(jobs: QuerySet[Job], by: str) -> dict[str, int]:
    """Return how many of ``jobs`` fall in each group of ``by``, groups A to Z.

    Queue, namespace and phase are counted by the database; the owner, partly kept in
    ownerReferences JSON, is counted from two narrow columns of every matching job.
    """
    counts: dict[str, int] = {}
    if by == "owner":
        for job in jobs.select_related("creator").only(
            "id", "creator__username", "owner_references"
        ):
            key = job_group_key(job, by)
            counts[key] = counts.get(key, 0) + 1
    elif by in JOB_GROUPS:
        for value, count in jobs.order_by().values_list(by).annotate(n=Count("id")):
            key = (value or "New") if by == "phase" else str(value)
            counts[key] = counts.get(key, 0) + count
    return dict(sorted(counts.items()))  # the order the list's rows take


def queue_waiting_line(queues: set[str]) -> dict[str, list[Job]]:
    """Return, per queue, its waiting jobs in the order the engine takes them.

    The ``priority`` plugin orders by the PodGroup's priority (higher first), then Volcano
    takes the older job first (creation time, then name).
    """
    waiting = (
        Job.objects.filter(queue__in=sorted(queues), phase__in=WAITING_PHASES)
        .order_by()
        .only("id", "namespace", "name", "queue", "priority_class_name", "created_at")
    )
    values = dict(PriorityClass.objects.values_list("name", "value"))
    line: dict[str, list[Job]] = {q: [] for q in queues}
    for job in waiting:
        line.setdefault(job.queue, []).append(job)
    for jobs in line.values():
        jobs.sort(key=lambda j: (-values.get(j.priority_class_name, 0), j.created_at, j.name))
    return line


def wait_reports(jobs: list[Job]) -> dict[int, WaitReport]:
    """Return a one-liner report for each waiting job of a page (four queries in all)."""
    waiting = [j for j in jobs if j.phase in WAITING_PHASES]
    if not waiting:
        return {}
    ids = [j.pk for j in waiting]
    groups = {g.job_id: g for g in PodGroup.objects.filter(job_id__in=ids)}
    pods: dict[int, list[Pod]] = {}
    for pod in Pod.objects.filter(job_id__in=ids, node__isnull=True).only(
        "id", "job_id", "name", "task_name", "phase", "node_id", "conditions", "nominated_node_name"
    ):
        pods.setdefault(pod.job_id or 0, []).append(pod)
    queues = {q.name: q for q in Queue.objects.filter(name__in={j.queue for j in waiting})}
    pending = [(g.namespace, g.name) for g in groups.values() if g.phase in ("", "Pending")]
    refusals = quota_refusals(pending)
    return {
        j.pk: why_waiting(
            j, group=(g := groups.get(j.pk)), pods=pods.get(j.pk, []), queue=queues.get(j.queue),
            quota_refusal=refusals.get((g.namespace, g.name), "") if g else "",
        )
        for j in waiting
    }  # fmt: skip


@dataclass(slots=True)
class LineEntry:
    """One waiting job in its queue's line: 1-based place, the job, why it waits."""

    position: int
    group: str  # namespace/PodGroup name, as the engine names it
    job: Job | None
    wait: WaitReport | None


def queue_line(
    user: Any, queue: str, order: Sequence[str], waiting: int, *, limit: int = 50
) -> tuple[list[LineEntry], int]:
    """Return the queue's waiting jobs in the engine's order (readable ones), and how many hidden.

    Jobs in namespaces the user may not read keep their place in the numbering but are not
    shown; the count of those is returned so the page can say so.
    """
    keys = [tuple(g.split("/", 1)) for g in order[: limit * 4]]  # (namespace, name)
    groups: dict[tuple[str, str], int | None] = {}
    if keys:
        names = {name for _ns, name in keys}
        for ns, name, owner in PodGroup.objects.filter(queue=queue, name__in=names).values_list(
            "namespace", "name", "job_id"
        ):
            groups[(ns, name)] = owner
    job_ids = [j for j in groups.values() if j]
    readable = {j.pk: j for j in restrict(Job.objects.filter(pk__in=job_ids), user)}
    reports = wait_reports(list(readable.values()))
    entries: list[LineEntry] = []
    hidden = 0
    for position, key in enumerate(keys, start=1):
        job_id = groups.get((key[0], key[1]))
        job = readable.get(job_id) if job_id else None
        if job_id and job is None:
            hidden += 1
            continue
        if len(entries) < limit:
            entries.append(
                LineEntry(position, "/".join(key), job, reports.get(job.pk) if job else None)
            )
    hidden += max(0, waiting - len(keys))
    return entries, hidden


def queue_job_count(queue: Queue) -> int:
    """Return how many jobs name ``queue`` (whatever their phase or namespace)."""
    return int(Job.objects.filter(queue=queue.name).count())


def queue_jobs_by_phase(queue: str) -> list[tuple[str, int]]:
    """Return ``(phase, count)`` of the jobs in ``queue``, by phase name (a new job's is New)."""
    counts = Job.objects.filter(queue=queue).order_by().values_list("phase").annotate(n=Count("pk"))
    return sorted((phase or "New", n) for phase, n in counts)


@dataclass(slots=True)
class TaskRow:
    """A task of the job with its replicas and how many pods are in each phase."""

    spec: TaskSpec
    phases: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class JobPage:
    """Everything a job's page shows."""

    job: Job
    tasks: list[TaskRow]
    pods: list[Pod]
    group: PodGroup | None
    events: list[Event]
    wait: WaitReport
    can_write: bool
    queue: Queue | None
    pod_issues: list[IssueRow] = field(default_factory=list)


def job_deletion(user: Any, namespace: str, name: str) -> AuditEntry | None:
    """Return who deleted the job ``namespace/name`` and when, from the audit log.

    None unless ``user`` may read jobs there, no job of that name exists now and a person's
    deletion of it was recorded (a controller's clean-up, ttlSecondsAfterFinished say, has
    nobody to name). A link to a deleted job then says so instead of "Not found".
    """
    if not can(user, "jobs", write=False, namespace=namespace):
        return None
    if Job.objects.filter(namespace=namespace, name=name).exists():
        return None
    return (
        AuditEntry.objects.filter(kind="Job", name=f"{namespace}/{name}", action="delete")
        .order_by("-created_at", "-id")
        .first()
    )


def _latest_quota_refusal(events: list[Event], group: PodGroup | None) -> str:
    """Return the resourcequota plugin's refusal if it is the group's newest ``Unschedulable``
    event (``events`` newest first, already read for the page: no query)."""
    if group is None:
        return ""
    for event in events:
        if (event.involved_kind, event.involved_name, event.reason) == (
            "PodGroup",
            group.name,
            "Unschedulable",
        ):
            return event.message if event.message.startswith(QUOTA_REFUSAL) else ""
    return ""


NODE_UNSHOWN = (
    "labels",
    "annotations",
    "owner_references",
    "finalizers",
    "taints",
    "capacity",
    "allocatable",
    "node_info",
    "addresses",
    "ready_message",
)


def job_page(user: Any, namespace: str, name: str, *, event_limit: int = 200) -> JobPage:
    """Return a job's page for ``user``; 404 when it does not exist or is not readable."""
    if not can(user, "jobs", write=False, namespace=namespace):
        raise Http404
    job = Job.objects.filter(namespace=namespace, name=name).first()
    if job is None:
        raise Http404
    specs = list(TaskSpec.objects.filter(job=job).order_by("index"))
    pods = list(
        Pod.objects.filter(job=job)
        .select_related("node")
        # Only the node's name is shown: its JSON documents, decoded for each of a 1,000-pod
        # job's pods, cost the page about a third of its time.
        .defer(*(f"node__{field}" for field in NODE_UNSHOWN))
        .order_by("task_name", "task_index", "name")
    )
    group = PodGroup.objects.filter(job=job).first()
    queue = Queue.objects.filter(name=job.queue).first()
    names = [job.name, *(p.name for p in pods)] + ([group.name] if group else [])
    events = list(
        Event.objects.filter(involved_namespace=namespace, involved_name__in=names).order_by(
            "-last_timestamp", "-id"
        )[:event_limit]
    )
    tasks = []
    for spec in specs:
        row = TaskRow(spec)
        for pod in pods:
            if pod.task_name == spec.name:
                row.phases[pod.phase] = row.phases.get(pod.phase, 0) + 1
        tasks.append(row)
    ahead: list[Job] = []
    position = 0
    waiting = job.phase in WAITING_PHASES
    if waiting:
        line = queue_waiting_line({job.queue}).get(job.queue, [])
        ids = [j.pk for j in line]
        if job.pk in ids:
            position = ids.index(job.pk) + 1
            ahead = line[: position - 1]
    wait = why_waiting(job, waiting=waiting, group=group, pods=pods, queue=queue, ahead=ahead,
                       position=position,
                       cluster=cluster_allocatable() if job.phase in ("", "Pending") else {},
                       quota_refusal=_latest_quota_refusal(events, group))  # fmt: skip
    return JobPage(
        job=job,
        tasks=tasks,
        pods=pods,
        group=group,
        events=events,
        wait=wait,
        can_write=can(user, "jobs", write=True, namespace=namespace),
        queue=queue,
        pod_issues=pod_issue_rollup(
            Pod.objects.filter(job=job), namespace=job.namespace, job=job.name
        ),
    )
