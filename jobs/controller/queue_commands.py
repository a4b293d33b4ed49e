"""Queue Commands: the bus.volcano.sh Commands whose target is a Queue (OpenQueue, CloseQueue).

Commands are the jobs app's kind (``jobs.models.Command``), one kind for both targets as in
Volcano's ``bus/v1alpha1``. Volcano's queue controller watches them itself; here the queues
app sits below jobs and may not read them, so this controller takes each new queue Command
exactly once (deleted before it acts, even across a crash) and hands its action to the queue
controller (``queues.controller.queue_command``), then runs the queue controller's
level-triggered pass, all in one transaction. A Command for a missing queue, or with a job's
action, is dropped with an ``InvalidCommand`` Warning event, as before.
"""

from __future__ import annotations

import datetime as dt

from django.db import transaction

from core.events import record_event
from core.models import EventType
from jobs.models import Command, TargetKind
from queues.controller import queue_command, reconcile_queues

__all__ = ["reconcile_queue_commands"]


def reconcile_queue_commands(now: dt.datetime) -> dict[str, list[str]]:
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
            if not queue_command(command.target_name, command.action, now, log):
                record_event(
                    command,
                    kind="Command",
                    reason="InvalidCommand",
                    message=f"{command.action} on missing or wrong target {command.target_name}",
                    now=now,
                    event_type=EventType.WARNING,
                )
        return reconcile_queues(now, log)
