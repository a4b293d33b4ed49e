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

from scheduler.engine.framework.session_plugins import pod_index

if TYPE_CHECKING:
    from scheduler.engine.api.task_info import TaskInfo
    from scheduler.engine.framework.session import Session

__all__ = ["PriorityQueue", "sort_tasks"]

T = TypeVar("T")


class PriorityQueue(Generic[T]):
    """Pop returns the item that ``compare`` puts first (negative = left first).

    ``key``, when given, must order items as ``compare`` does (``Session.job_order_key``); it is
    evaluated once per push instead of comparing through the plugins on every heap step. That
    is only the same while an item's order cannot change while it waits in the heap, which holds
    where only the popped item changes (enqueue, allocate, backfill).

    A key that is a tuple is stored flat, ``(*key, sequence, item)``: comparing two entries then
    walks one tuple once, where ``(key, sequence, item)`` first tests the key tuples for
    equality and then compares them again (a pop among 2,500 jobs: about 5x faster). Flat
    entries order as nested ones only while every key has the same length, so a key of another
    length is refused.
    """

    __slots__ = ("_counter", "_heap", "_key", "_width")

    def __init__(
        self,
        compare: Callable[[T, T], int],
        items: Iterable[T] = (),
        *,
        key: Callable[[T], Any] | None = None,
    ) -> None:
        self._key: Callable[[T], Any] = key if key is not None else cmp_to_key(compare)
        self._counter = itertools.count()
        self._heap: list[tuple[Any, ...]] = []
        self._width = -1  # 1 + the length of tuple keys (-1: none pushed yet; 0: not tuples)
        for item in items:
            self.push(item)

    def push(self, item: T) -> None:
        """Add ``item``."""
        key = self._key(item)
        if type(key) is tuple:
            if len(key) + 1 != self._width:
                self._check_width(len(key) + 1)
            heapq.heappush(self._heap, (*key, next(self._counter), item))
        else:
            if self._width:
                self._check_width(0)
            heapq.heappush(self._heap, (key, next(self._counter), item))

    def push_all(self, items: Iterable[T]) -> None:
        """Add every item of ``items``, in order (as many ``push`` calls, heapified at once).

        Entries are unique (the sequence number), so the heap's layout does not change what
        ``pop`` returns: pushing one by one and heapifying once give the same pops.
        """
        heap = self._heap
        for item in items:
            key = self._key(item)
            if type(key) is tuple:
                if len(key) + 1 != self._width:
                    self._check_width(len(key) + 1)
                heap.append((*key, next(self._counter), item))
            else:
                if self._width:
                    self._check_width(0)
                heap.append((key, next(self._counter), item))
        heapq.heapify(heap)

    def _check_width(self, width: int) -> None:
        if self._width == -1:
            self._width = width
        else:
            raise ValueError("order keys must all be tuples of one length, or all not tuples")

    def pop(self) -> T:
        """Remove and return the first item; raises IndexError when empty."""
        item: T = heapq.heappop(self._heap)[-1]
        return item

    def empty(self) -> bool:
        """Return True when nothing is queued."""
        return not self._heap

    def __len__(self) -> int:
        return len(self._heap)


def _default_task_key(tasks: list[TaskInfo]) -> Callable[[TaskInfo], Any] | None:
    """Return a key equal to Volcano's default task order for ``tasks``, or None.

    The default order (pod index when both names carry one, else creation time when both have
    one, else uid) is only a key when the tasks are uniform: all or none with an index, all or
    none with a creation time.
    """
    indices = {t.uid: pod_index(t.name) for t in tasks}
    with_index = sum(i is not None for i in indices.values())
    with_time = sum(t.creation_timestamp is not None for t in tasks)
    if with_index not in (0, len(tasks)) or with_time not in (0, len(tasks)):
        return None
    by_index = with_index == len(tasks)
    by_time = with_time == len(tasks)

    def key(task: TaskInfo) -> tuple[Any, ...]:
        return (
            indices[task.uid] if by_index else 0,  # (each name parsed once, above)
            task.creation_timestamp if by_time else 0,
            task.uid,
        )

    return key


def sort_tasks(ssn: Session, tasks: list[TaskInfo]) -> list[TaskInfo]:
    """Return ``tasks`` in the session's task order (what popping a task queue would give).

    Sorted by key when every enabled task order offers one and the default order is a key for
    these tasks; otherwise by pairwise comparison. Both give the same order.
    """
    if len(tasks) < 2:  # one-pod jobs: nothing to order
        return list(tasks)
    plugin_key = ssn.task_order_key()
    default_key = _default_task_key(tasks) if plugin_key is not None else None
    if plugin_key is not None and default_key is not None:
        # Keys built once per task (decorated, then sorted by key alone: the uid ends every
        # key, so no two are equal and the task itself is never compared).
        keyed = [((plugin_key(t), default_key(t)), t) for t in tasks]
        keyed.sort(key=_first)
        return [t for _k, t in keyed]
    return sorted(tasks, key=cmp_to_key(ssn.task_order_cmp))


def _first(pair: tuple[Any, TaskInfo]) -> Any:
    return pair[0]
