"""A priority queue ordered by a session comparator (Volcano's ``util.PriorityQueue``).

Volcano's counterpart: ``pkg/scheduler/util/priority_queue.go``. The comparison is called when items
are pushed and popped, so an order that depends on changing state (drf shares, gang readiness) is
re-evaluated for an item each time it is pushed back, as in Volcano. Equal items keep insertion
order (a sequence number breaks ties), which keeps results deterministic.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterable
from functools import cmp_to_key
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from scheduler.engine.api.task_info import TaskInfo
    from scheduler.engine.framework.session import Session

__all__ = ["PriorityQueue", "sort_tasks"]

T = TypeVar("T")


class PriorityQueue(Generic[T]):
    """Pop returns the item that ``compare`` puts first (negative = left first)."""

    __slots__ = ("_counter", "_heap", "_key")

    def __init__(self, compare: Callable[[T, T], int], items: Iterable[T] = ()) -> None:
        self._key: Callable[[T], Any] = cmp_to_key(compare)
        self._counter = itertools.count()
        self._heap: list[tuple[Any, int, T]] = []
        for item in items:
            self.push(item)

    def push(self, item: T) -> None:
        """Add ``item``."""
        heapq.heappush(self._heap, (self._key(item), next(self._counter), item))

    def pop(self) -> T:
        """Remove and return the first item; raises IndexError when empty."""
        return heapq.heappop(self._heap)[2]

    def empty(self) -> bool:
        """Return True when nothing is queued."""
        return not self._heap

    def __len__(self) -> int:
        return len(self._heap)


def sort_tasks(ssn: Session, tasks: list[TaskInfo]) -> list[TaskInfo]:
    """Return ``tasks`` in the session's task order (what popping a task queue would give)."""
    return sorted(tasks, key=cmp_to_key(ssn.task_order_cmp))
