"""Queue Commands: OpenQueue and CloseQueue taken once by the job controller, acted on by the
queue controller (Closing until PodGroups are gone)."""

from __future__ import annotations

import datetime as dt

import pytest

from core.models import Event
from jobs.controller.queue_commands import reconcile_queue_commands
from jobs.models import Command, CommandAction, TargetKind
from queues.controller import CLOSED_BY_PARENT
from queues.models import PodGroup, Queue, QueueState

pytestmark = pytest.mark.django_db

NOW = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.UTC)


def command(queue: str, action: str) -> Command:
    return Command.objects.create(
        name=f"{queue}-{action.lower()}",
        action=action,
        target_kind=TargetKind.QUEUE,
        target_name=queue,
    )


def state(name: str) -> str:
    return Queue.objects.get(name=name).state


def test_close_command_on_an_empty_queue_closes_it_and_is_taken_once() -> None:
    Queue.objects.create(name="batch")
    taken = command("batch", CommandAction.CLOSE_QUEUE)
    assert reconcile_queue_commands(NOW) == {"batch": ["Open->Closed"]}
    assert not Command.objects.filter(pk=taken.pk).exists()  # deleted before it acted
    assert reconcile_queue_commands(NOW) == {}
    assert Event.objects.filter(
        involved_kind="Queue", involved_name="batch", reason="Closed"
    ).exists()


def test_close_command_with_pod_groups_goes_closing_then_closed_when_they_are_gone() -> None:
    Queue.objects.create(name="batch")
    PodGroup.objects.create(name="pg", queue="batch", phase="Completed")
    command("batch", CommandAction.CLOSE_QUEUE)
    reconcile_queue_commands(NOW)
    assert state("batch") == QueueState.CLOSING
    reconcile_queue_commands(NOW)
    assert state("batch") == QueueState.CLOSING  # any PodGroup keeps it closing
    PodGroup.objects.all().delete()
    assert reconcile_queue_commands(NOW) == {"batch": ["Closing->Closed"]}


def test_open_command_reopens_a_closed_or_closing_queue() -> None:
    Queue.objects.create(name="a", state=QueueState.CLOSED)
    Queue.objects.create(name="b", state=QueueState.CLOSING)
    PodGroup.objects.create(name="pg", queue="b")
    command("a", CommandAction.OPEN_QUEUE)
    command("b", CommandAction.OPEN_QUEUE)
    reconcile_queue_commands(NOW)
    assert (state("a"), state("b")) == (QueueState.OPEN, QueueState.OPEN)


def test_closing_a_parent_closes_its_children_and_opening_it_reopens_them() -> None:
    Queue.objects.create(name="org")
    Queue.objects.create(name="kid", parent="org")
    Queue.objects.create(name="own", parent="org", state=QueueState.CLOSED)
    command("org", CommandAction.CLOSE_QUEUE)
    reconcile_queue_commands(NOW)
    assert (state("org"), state("kid")) == (QueueState.CLOSED, QueueState.CLOSED)
    assert Queue.objects.get(name="kid").annotations[CLOSED_BY_PARENT] == "org"
    Command.objects.all().delete()
    command("org", CommandAction.OPEN_QUEUE)
    reconcile_queue_commands(NOW)
    assert (state("org"), state("kid"), state("own")) == ("Open", "Open", "Closed")
    assert CLOSED_BY_PARENT not in Queue.objects.get(name="kid").annotations


def test_a_queue_cannot_open_under_a_closed_parent() -> None:
    Queue.objects.create(name="org", state=QueueState.CLOSED)
    Queue.objects.create(name="kid", parent="org", state=QueueState.CLOSED)
    command("kid", CommandAction.OPEN_QUEUE)
    reconcile_queue_commands(NOW)
    assert state("kid") == QueueState.CLOSED
    assert Event.objects.filter(reason="OpenQueueFailed", involved_name="kid").exists()


def test_command_for_a_missing_queue_is_dropped_with_a_warning() -> None:
    taken = command("ghost", CommandAction.CLOSE_QUEUE)
    reconcile_queue_commands(NOW)
    assert not Command.objects.filter(pk=taken.pk).exists()
    assert Event.objects.filter(reason="InvalidCommand", type="Warning").exists()
