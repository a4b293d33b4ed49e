"""The preview of a queue edit: every queue's deserved share before and after, from the engine.

Both sides are ``live_shares`` (the engine's proportion or capacity plugin on the snapshot);
the after side has the edit applied to its snapshot copy, so nothing is written. A row says
what moves: deserved per resource, and whether the queue becomes (or stops being) overused
or reclaimable.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from queues.models import Queue
from scheduler.engine.shares import QueueChange, QueueShare, ShareReport
from scheduler.live_shares import live_shares_pair

__all__ = ["Preview", "PreviewRow", "change_of", "preview_change"]

_EPSILON = 0.5  # milli-units: below this a deserved share did not move


@dataclass(slots=True)
class PreviewRow:
    """One queue's share before and after the edit."""

    name: str
    before: QueueShare | None
    after: QueueShare | None
    edited: bool
    deserved: list[tuple[str, float | None, float | None, bool]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """Return whether anything this row shows moves."""
        b, a = self.before, self.after
        flags = (b is None) != (a is None) or (
            b is not None and a is not None
            and (b.overused, b.reclaimable, b.weight) != (a.overused, a.reclaimable, a.weight)
        )  # fmt: skip
        return bool(flags) or any(moved for *_r, moved in self.deserved)


@dataclass(slots=True)
class Preview:
    """The whole preview: rows for every queue, the plugin, and what the edit left out."""

    plugin: str
    resources: list[str]
    rows: list[PreviewRow]
    before: ShareReport
    after: ShareReport

    @property
    def moved(self) -> int:
        """Return how many queues' figures move."""
        return sum(1 for row in self.rows if row.changed)

    @property
    def deserved_moves(self) -> list[PreviewRow]:
        """Return the rows whose deserved share moves (a weight alone moving is not one)."""
        return [row for row in self.rows if any(moved for *_r, moved in row.deserved)]


def change_of(queue: Queue) -> QueueChange:
    """Return the sharing fields of an (edited, unsaved) queue as an engine change."""
    return QueueChange(
        weight=queue.weight,
        capability=dict(queue.capability or {}),
        deserved=dict(queue.deserved or {}),
        guarantee=dict(queue.guarantee or {}),
    )


def preview_change(edited: Queue, resources: list[str]) -> Preview:
    """Return every queue's share now and after ``edited`` replaces its stored row."""
    before, after = live_shares_pair({edited.name: change_of(edited)})
    rows = []
    for name in sorted(set(before.queues) | set(after.queues)):
        b, a = before.queues.get(name), after.queues.get(name)
        row = PreviewRow(name, b, a, edited=name == edited.name)
        for resource in resources:
            old = b.deserved.get(resource, 0.0) if b and b.taking_part else None
            new = a.deserved.get(resource, 0.0) if a and a.taking_part else None
            moved = (old is None) != (new is None) or (
                old is not None and new is not None and abs(old - new) >= _EPSILON
            )
            row.deserved.append((resource, old, new, moved))
        rows.append(row)
    rows.sort(key=lambda r: (not r.edited, not r.changed, r.name))
    return Preview(before.plugin, resources, rows, before, after)
