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
opened again on the next pass. Commands are taken exactly once.
"""

from __future__ import annotations

import datetime as dt

from django.db import transaction

from core.events import record_event
from core.models import EventType
from jobs.models import Command, CommandAction, TargetKind
from queues.models import PodGroup, Queue, QueueState

__all__ = ["CLOSED_BY_PARENT", "ROOT_NOT_CLOSED", "queue_execute", "reconcile_queues"]

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
    if action == CommandAction.OPEN_QUEUE:
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
                queue_execute(child, CommandAction.OPEN_QUEUE, now, log)
        return
    if action == CommandAction.CLOSE_QUEUE and queue.name == ROOT:
        # Volcano's queue controller refuses too ("Root queue cannot be closed").
        record_event(
            queue, kind="Queue", reason="CloseQueueFailed", now=now,
            message=ROOT_NOT_CLOSED, event_type=EventType.WARNING,
        )  # fmt: skip
        return
    if action == CommandAction.CLOSE_QUEUE or queue.state == QueueState.CLOSING:
        for child in Queue.objects.filter(parent=queue.name).exclude(state__in=SHUT):
            child.annotations[CLOSED_BY_PARENT] = queue.name
            queue_execute(child, CommandAction.CLOSE_QUEUE, now, log)
        if queue.state != QueueState.CLOSED:
            busy = _has_pod_groups(queue)
            _set_state(queue, QueueState.CLOSING if busy else QueueState.CLOSED, now, log)


def reconcile_queues(now: dt.datetime) -> dict[str, list[str]]:
    """Take new queue Commands, then move Closing queues on; return each queue's transitions."""
    log: dict[str, list[str]] = {}
    with transaction.atomic():
        commands = Command.objects.select_for_update().filter(
            target_kind=TargetKind.QUEUE, processed=False
        )
        for command in commands.order_by("created_at", "pk"):
            # Deleted before it acts, as Volcano does: at most once, even across a crash.
            if not Command.objects.filter(pk=command.pk).delete()[0]:
                continue
            queue = Queue.objects.select_for_update().filter(name=command.target_name).first()
            if queue is None or command.action not in (
                CommandAction.OPEN_QUEUE,
                CommandAction.CLOSE_QUEUE,
            ):
                record_event(
                    command,
                    kind="Command",
                    reason="InvalidCommand",
                    message=f"{command.action} on missing or wrong target {command.target_name}",
                    now=now,
                    event_type=EventType.WARNING,
                )
                continue
            log.setdefault(queue.name, [])
            queue_execute(queue, command.action, now, log)
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
            queue_execute(queue, "SyncQueue", now, log)
        for queue in (
            Queue.objects.select_for_update().filter(state=QueueState.OPEN).exclude(parent="")
        ):
            parent = Queue.objects.filter(name=queue.parent).first()
            if parent is not None and parent.state in SHUT:
                queue.annotations[CLOSED_BY_PARENT] = parent.name
                queue_execute(queue, CommandAction.CLOSE_QUEUE, now, log)
    return {name: steps for name, steps in log.items() if steps}
