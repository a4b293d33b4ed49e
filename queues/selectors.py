"""Reads for the queue pages: rows in hierarchy order, resource columns, a queue's line of jobs.

Shares come from ``queues.shares`` (the engine's figures); everything else is the Queue rows
the controllers keep (PodGroup counts per phase, allocated) and the audit log.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import QuerySet

from jobs.models import Job, PodGroup
from jobs.selectors import cluster_allocatable, wait_reports
from jobs.why import WaitReport
from queues.admission import ROOT
from queues.models import Queue
from scheduler.engine.shares import QueueShare, ShareReport
from volcano_site.accounts.models import AuditEntry
from volcano_site.console.namespaces import restrict

__all__ = [
    "QUEUE_SORTS",
    "LineEntry",
    "QueueRow",
    "queue_audit",
    "queue_line",
    "queue_rows",
    "shown_resources",
]

# Sorted in Python (a hundred queues at most in practice): the keys only name the columns.
QUEUE_SORTS: dict[str, tuple[str, ...]] = {
    key: (key,) for key in ("name", "weight", "priority", "state", "share", "running", "pending")
}


@dataclass(slots=True)
class QueueRow:
    """A queue as its table row shows it: the row, its engine share, its place in the tree."""

    queue: Queue
    share: QueueShare | None
    depth: int = 0
    children: list[str] = field(default_factory=list)

    @property
    def parent_name(self) -> str:
        """Return the parent as Volcano names it (``root`` when none is set)."""
        return self.queue.parent or ROOT


def shown_resources(queues: Iterable[Queue]) -> list[str]:
    """Return the resource columns worth a column: cpu, memory, then any other in use or quota."""
    names = set(cluster_allocatable())
    for queue in queues:
        for values in (queue.capability, queue.deserved, queue.guarantee, queue.allocated):
            names.update(values or {})
    names.discard("pods")
    names.update({"cpu", "memory"})
    return sorted(names, key=lambda n: (n != "cpu", n != "memory", n))


def _sort_key(row: QueueRow, sort: str) -> Any:
    queue = row.queue
    if sort == "share":
        return row.share.share if row.share else 0.0
    if sort in ("weight", "priority", "running", "pending"):
        return getattr(queue, sort)
    if sort == "state":
        return queue.state
    return queue.name


def queue_rows(
    report: ShareReport, *, sort: str = "name", descending: bool = False
) -> list[QueueRow]:
    """Return every queue, in hierarchy order when parents exist (sorted among siblings)."""
    queues = list(Queue.objects.all())
    rows = {q.name: QueueRow(q, report.queues.get(q.name)) for q in queues}
    for row in rows.values():
        parent = row.queue.parent
        if parent and parent != ROOT and parent in rows:
            rows[parent].children.append(row.queue.name)

    def ordered(names: Iterable[str]) -> list[QueueRow]:
        picked = [rows[n] for n in names]
        picked.sort(key=lambda r: r.queue.name)
        picked.sort(key=lambda r: _sort_key(r, sort), reverse=descending)
        return picked

    tops = [
        n for n, r in rows.items()
        if not r.queue.parent or r.queue.parent == ROOT or r.queue.parent not in rows
    ]  # fmt: skip
    if all(not r.children for r in rows.values()):
        return ordered(tops)
    out: list[QueueRow] = []

    def walk(row: QueueRow, depth: int) -> None:
        row.depth = depth
        out.append(row)
        for child in ordered(row.children):
            walk(child, depth + 1)

    for top in ordered(tops):
        walk(top, 0)
    return out


@dataclass(slots=True)
class LineEntry:
    """One waiting job in its queue's line: 1-based place, the job, why it waits."""

    position: int
    group: str  # namespace/PodGroup name, as the engine names it
    job: Job | None
    wait: WaitReport | None


def queue_line(
    user: Any, queue: str, report: ShareReport, *, limit: int = 50
) -> tuple[list[LineEntry], int]:
    """Return the queue's waiting jobs in the engine's order (readable ones), and how many hidden.

    Jobs in namespaces the user may not read keep their place in the numbering but are not
    shown; the count of those is returned so the page can say so.
    """
    order = report.job_order.get(queue, [])
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
    hidden += max(0, len(order) - len(keys))
    return entries, hidden


def queue_audit(name: str, *, limit: int = 50) -> QuerySet[AuditEntry]:
    """Return the latest operator changes of queue ``name``, newest first."""
    return AuditEntry.objects.filter(kind="Queue", name=name).order_by("-created_at", "-id")[:limit]
