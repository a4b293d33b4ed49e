"""The queue controller: Open / Closing / Closed through OpenQueue and CloseQueue Commands.

Volcano's ``pkg/controllers/queue/state``, level-triggered like the job controller:

| state ↓ / action → | OpenQueue | CloseQueue | SyncQueue (every pass) |
| --- | --- | --- | --- |
| Open, Unknown | Open | Closed if no PodGroup is in the queue, else Closing | unchanged |
| Closing | Open | Closed once no PodGroup remains, else Closing | the same as CloseQueue |
| Closed | Open | Closed | Closed |

"In the queue" means any PodGroup whose queue it is, whatever its phase: the job
controller deletes a finished job's PodGroup, which is what lets Closing end.
Hierarchy: closing a queue also closes its open children (marked closed by their
parent); opening one reopens the children it closed; a queue cannot open while
its parent is Closing or Closed (the command is dropped with a Warning event,
where Volcano retries it a few times first). ``root`` is never closed: a CloseQueue
for it is dropped with a Warning event, and a root closed by a raw ``/status`` write is
opened again on the next pass.

The Commands themselves (``bus.volcano.sh``) belong to the jobs app, above this one: its
controller takes each queue Command exactly once and hands its action to ``queue_command``
(``jobs.controller.queue_commands``), then runs ``reconcile_queues`` in the same
transaction. The console's Open and Close buttons call ``queue_execute`` directly
(``queues.services``).
"""

from __future__ import annotations

import datetime as dt

from django.db import transaction

from core.events import record_event
from core.models import EventType
from queues.models import PodGroup, Queue, QueueAction, QueueState

__all__ = [
    "CLOSED_BY_PARENT",
    "ROOT_NOT_CLOSED",
    "queue_command",
    "queue_execute",
    "reconcile_queues",
]

CLOSED_BY_PARENT = "volcano.sh/closed-by-parent"
ROOT = "root"
ROOT_NOT_CLOSED = "root queue can not be closed"
SHUT = (QueueState.CLOSING, QueueState.CLOSED)


def _has_pod_groups(queue: Queue) -> bool:
    return PodGroup.objects.filter(queue=queue.name).exists()


def _set_state(
    queue: Queue, state: QueueState, now: dt.datetime, log: dict[str, list[str]]
) -> None:
    if queue.state == state:
        return
    log.setdefault(queue.name, []).append(f"{queue.state}->{state}")
    record_event(
        queue,
        kind="Queue",
        reason=str(state),
        message=f"Queue state {queue.state} -> {state}",
        now=now,
    )
    queue.state = state
    queue.save(update_fields=["state", "annotations"])


def queue_execute(queue: Queue, action: str, now: dt.datetime, log: dict[str, list[str]]) -> None:
    """Apply ``action`` (OpenQueue, CloseQueue or SyncQueue) to ``queue`` and its children."""
    if action == QueueAction.OPEN_QUEUE:
        parent = Queue.objects.filter(name=queue.parent).first() if queue.parent else None
        if parent is not None and parent.state in SHUT:
            record_event(
                queue,
                kind="Queue",
                reason="OpenQueueFailed",
                message=f"cannot open queue {queue.name}: its parent {parent.name} is {parent.state}",
                now=now,
                event_type=EventType.WARNING,
            )
            return
        queue.annotations.pop(CLOSED_BY_PARENT, None)
        _set_state(queue, QueueState.OPEN, now, log)
        for child in Queue.objects.filter(parent=queue.name, state__in=SHUT):
            if child.annotations.get(CLOSED_BY_PARENT) == queue.name:
                queue_execute(child, QueueAction.OPEN_QUEUE, now, log)
        return
    if action == QueueAction.CLOSE_QUEUE and queue.name == ROOT:
        # Volcano's queue controller refuses too ("Root queue cannot be closed").
        record_event(
            queue, kind="Queue", reason="CloseQueueFailed", now=now,
            message=ROOT_NOT_CLOSED, event_type=EventType.WARNING,
        )  # fmt: skip
        return
    if action == QueueAction.CLOSE_QUEUE or queue.state == QueueState.CLOSING:
        for child in Queue.objects.filter(parent=queue.name).exclude(state__in=SHUT):
            child.annotations[CLOSED_BY_PARENT] = queue.name
            queue_execute(child, QueueAction.CLOSE_QUEUE, now, log)
        if queue.state != QueueState.CLOSED:
            busy = _has_pod_groups(queue)
            _set_state(queue, QueueState.CLOSING if busy else QueueState.CLOSED, now, log)


def queue_command(name: str, action: str, now: dt.datetime, log: dict[str, list[str]]) -> bool:
    """Act on a Command's ``action`` for queue ``name``; False: no such queue or action.

    Call it in a transaction: the queue's row is locked for the rest of it.
    """
    queue = Queue.objects.select_for_update().filter(name=name).first()
    if queue is None or action not in (QueueAction.OPEN_QUEUE, QueueAction.CLOSE_QUEUE):
        return False
    log.setdefault(queue.name, [])
    queue_execute(queue, action, now, log)
    return True


def reconcile_queues(
    now: dt.datetime, log: dict[str, list[str]] | None = None
) -> dict[str, list[str]]:
    """Move Closing queues on, reopen root, close children of shut parents.

    Return each queue's transitions, added to ``log`` (what the Commands of this pass did).
    """
    log = {} if log is None else log
    with transaction.atomic():
        for queue in (
            Queue.objects.select_for_update().filter(name=ROOT).exclude(state=QueueState.OPEN)
        ):
            # A raw ``/status`` write (no webhook judges those) closed root: open it again.
            record_event(
                queue, kind="Queue", reason="CloseQueueFailed", now=now,
                message=ROOT_NOT_CLOSED, event_type=EventType.WARNING,
            )  # fmt: skip
            _set_state(queue, QueueState.OPEN, now, log)
        for queue in Queue.objects.select_for_update().filter(state=QueueState.CLOSING):
            queue_execute(queue, QueueAction.SYNC_QUEUE, now, log)
        for queue in (
            Queue.objects.select_for_update().filter(state=QueueState.OPEN).exclude(parent="")
        ):
            parent = Queue.objects.filter(name=queue.parent).first()
            if parent is not None and parent.state in SHUT:
                queue.annotations[CLOSED_BY_PARENT] = parent.name
                queue_execute(queue, QueueAction.CLOSE_QUEUE, now, log)
    return {name: steps for name, steps in log.items() if steps}
