"""Reads for the queue pages: rows in tree order (root first), resource columns, a queue's audit.

Shares are the engine's figures the worker stored on each queue row after its last session
(``queues.share_status``); everything else is the Queue rows the controllers keep (PodGroup
counts per phase, allocated) and the audit log. The jobs of a queue are the jobs app's
(``jobs.selectors.queue_line``), shown on the queue's page as its fragment.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import QuerySet

from accounts.models import AuditEntry
from console.units import amount, quantity
from core.models import Node
from queues.admission import ROOT
from queues.models import Queue
from queues.share_status import StoredShare

__all__ = [
    "QUEUE_SORTS",
    "QueueRow",
    "queue_audit",
    "queue_rows",
    "queue_tree",
    "shown_resources",
]

GPU = "nvidia.com/gpu"
# Sorted in Python (a hundred queues at most in practice): the keys only name the columns.
QUEUE_SORTS: dict[str, tuple[str, ...]] = {
    key: (key,) for key in ("name", "weight", "priority", "state", "share", "running", "pending")
}


@dataclass(frozen=True, slots=True)
class QuotaCell:
    """One resource of one queue, ready to print: allocated / deserved, bar, guarantee, cap."""

    resource: str
    allocated: str
    deserved: str  # "" when the queue takes no share
    percent: float
    guarantee: str
    capability: str


@dataclass(slots=True)
class QueueRow:
    """A queue as its table row shows it: the row, its engine share, its place in the tree."""

    queue: Queue
    share: StoredShare
    depth: int = 0
    children: list[str] = field(default_factory=list)
    kids: list[QueueRow] = field(default_factory=list)  # the child rows, sorted, for the tree
    cells: list[QuotaCell] = field(default_factory=list)

    def fill_cells(self, resources: Sequence[str]) -> None:
        """Prepare the quota cells of ``resources`` (formatting once here, not in the template)."""
        q, share = self.queue, self.share
        allocated, guarantee, capability = q.allocated or {}, q.guarantee or {}, q.capability or {}
        self.cells = []
        for r in resources:
            used = allocated.get(r, 0)
            deserved = share.deserved.get(r, 0.0) if share.taking_part else None
            percent = 0.0
            if deserved:
                percent = round(min(100.0, 100.0 * used / deserved), 1)
            self.cells.append(QuotaCell(
                r, amount(used, r), "" if deserved is None else quantity(deserved, r), percent,
                quantity(guarantee[r], r) if r in guarantee else "",
                quantity(capability[r], r) if r in capability else "",
            ))  # fmt: skip

    @property
    def overused(self) -> bool:
        """Return whether the queue holds more than it deserves of some resource.

        The engine calls a queue overused once allocated reaches deserved on every resource
        (Volcano's ``deserved.LessEqual(allocated)``), which an empty queue deserving nothing
        satisfies; a person reads "overused" as holding too much, so the badge needs more.
        """
        if not (self.share.overused and self.share.taking_part):
            return False
        allocated = self.queue.allocated or {}
        return any(
            int(used) > self.share.deserved.get(name, 0.0) for name, used in allocated.items()
        )

    @property
    def at_share(self) -> bool:
        """Return whether the queue holds exactly its deserved share (it gets no more)."""
        return (
            self.share.overused
            and self.share.taking_part
            and any(self.queue.allocated.values() if self.queue.allocated else ())
            and not self.overused
        )

    @property
    def parent_name(self) -> str:
        """Return the parent as Volcano names it (``root`` when none is set)."""
        return self.queue.parent or ROOT


def shown_resources(queues: Iterable[Queue]) -> list[str]:
    """Return the resource columns worth a column: cpu, memory, GPUs, any other quota'd or used.

    Node resources other than GPUs (ephemeral-storage, hugepages) get no column unless a queue
    names them: one indexed query instead of summing every node's allocatable.
    """
    names: set[str] = set()
    if Node.objects.filter(allocatable__has_key=GPU).exists():
        names.add(GPU)
    for queue in queues:
        for values in (queue.capability, queue.deserved, queue.guarantee, queue.allocated):
            names.update(values or {})
    names.discard("pods")
    names.update({"cpu", "memory"})
    return sorted(names, key=lambda n: (n != "cpu", n != "memory", n))


def _sort_key(row: QueueRow, sort: str) -> Any:
    queue = row.queue
    if sort == "share":
        return row.share.share
    if sort in ("weight", "priority", "running", "pending"):
        return getattr(queue, sort)
    if sort == "state":
        return queue.state
    return queue.name


def queue_rows(*, sort: str = "name", descending: bool = False) -> list[QueueRow]:
    """Return every queue with its stored share, in tree order: a parent before its children.

    ``root``, Volcano's parent of every queue, heads the list; a queue without a parent (or
    whose parent is gone) is root's child, so a flat set of queues is root and one level under
    it. Siblings follow the sort; each row's ``kids`` are its child rows, for the tree.
    """
    queues = list(Queue.objects.defer("waiting_line"))
    rows = {q.name: QueueRow(q, StoredShare.from_json(q.share_status)) for q in queues}
    root = rows.get(ROOT)
    tops: list[str] = []
    for name, row in rows.items():
        if name == ROOT:
            continue
        parent = row.queue.parent
        if parent and parent != ROOT and parent in rows:
            rows[parent].children.append(name)
        else:
            tops.append(name)
    if root is not None:
        root.children = tops

    def ordered(names: Iterable[str]) -> list[QueueRow]:
        picked = [rows[n] for n in names]
        picked.sort(key=lambda r: r.queue.name)
        picked.sort(key=lambda r: _sort_key(r, sort), reverse=descending)
        return picked

    out: list[QueueRow] = []

    def walk(row: QueueRow, depth: int) -> None:
        row.depth = depth
        row.kids = ordered(row.children)
        out.append(row)
        for child in row.kids:
            walk(child, depth + 1)

    for top in [root] if root is not None else ordered(tops):
        walk(top, 0)
    return out


def queue_tree(rows: Sequence[QueueRow]) -> list[QueueRow]:
    """Return the tops of the tree ``queue_rows`` made: ``root`` alone when it exists."""
    return [row for row in rows if row.depth == 0]


def queue_audit(name: str, *, limit: int = 50) -> QuerySet[AuditEntry]:
    """Return the latest operator changes of queue ``name``, newest first."""
    return AuditEntry.objects.filter(kind="Queue", name=name).order_by("-created_at", "-id")[:limit]
