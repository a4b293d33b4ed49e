"""The shares the scheduler computed, as stored on each queue row, read back for the pages.

The worker writes them after each session (``scheduler.queue_status``, as Volcano's scheduler
updates queue status); the queue pages read them here, without opening a session of their own.
A preview still computes live (``scheduler.share_preview``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from queues.models import Queue

__all__ = ["StoredShare", "stored_shares"]


@dataclass(frozen=True, slots=True)
class StoredShare:
    """A queue's share as the last session computed it (the fields the pages read)."""

    plugin: str = ""
    taking_part: bool = False
    deserved: dict[str, float] = field(default_factory=dict)
    overused: bool = False
    reclaimable: bool = False
    share: float = 0.0
    place: int = 0  # 1-based place among the queues allocate visits (0: holds no job)
    waiting: int = 0  # how many PodGroups wait (the first ones are in ``waiting_line``)
    at: str = ""

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> StoredShare:
        """Return the stored figures (an empty share before the first session)."""
        if not data:
            return cls()
        return cls(
            plugin=str(data.get("plugin", "")),
            taking_part=bool(data.get("taking_part")),
            deserved={k: float(v) for k, v in (data.get("deserved") or {}).items()},
            overused=bool(data.get("overused")),
            reclaimable=bool(data.get("reclaimable")),
            share=float(data.get("share", 0.0)),
            place=int(data.get("place", 0)),
            waiting=int(data.get("waiting", 0)),
            at=str(data.get("at", "")),
        )


def stored_shares(queues: list[Queue]) -> dict[str, StoredShare]:
    """Return each queue's stored share by name."""
    return {q.name: StoredShare.from_json(q.share_status) for q in queues}
