"""The queue state machine: Open, Closing until its PodGroups are gone, Closed; parents and root."""

from __future__ import annotations

import datetime as dt

import pytest

from core.models import Event
from jobs.controller import reconcile_all
from queues.controller import CLOSED_BY_PARENT, queue_command, reconcile_queues
from queues.models import PodGroup, Queue, QueueAction, QueueState
from queues.services import queue_close, queue_open

pytestmark = pytest.mark.django_db

NOW = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.UTC)


def state(name: str) -> str:
    return Queue.objects.get(name=name).state


def test_closing_queue_stays_closing_while_any_pod_group_remains_then_closes() -> None:
    Queue.objects.create(name="batch")
    PodGroup.objects.create(name="pg", queue="batch", phase="Completed")
    queue_close(queue=Queue.objects.get(name="batch"))
    assert state("batch") == QueueState.CLOSING
    assert reconcile_queues(NOW) == {}
    assert state("batch") == QueueState.CLOSING  # any PodGroup keeps it closing
    PodGroup.objects.all().delete()
    assert reconcile_queues(NOW) == {"batch": ["Closing->Closed"]}
    assert Event.objects.filter(
        involved_kind="Queue", involved_name="batch", reason="Closed"
    ).exists()


def test_a_command_for_a_missing_queue_or_with_a_job_action_is_not_acted_on() -> None:
    Queue.objects.create(name="batch")
    assert not queue_command("ghost", QueueAction.CLOSE_QUEUE, NOW, {})
    assert not queue_command("batch", "AbortJob", NOW, {})
    assert state("batch") == QueueState.OPEN


def test_an_open_queue_under_a_closed_parent_is_closed_by_it() -> None:
    Queue.objects.create(name="org", state=QueueState.CLOSED)
    Queue.objects.create(name="kid", parent="org")
    assert reconcile_queues(NOW) == {"kid": ["Open->Closed"]}
    assert Queue.objects.get(name="kid").annotations[CLOSED_BY_PARENT] == "org"


def test_root_closed_by_a_status_write_is_opened_again() -> None:
    Queue.objects.filter(name="root").update(state=QueueState.CLOSED)
    assert reconcile_queues(NOW) == {"root": ["Closed->Open"]}
    assert Event.objects.filter(reason="CloseQueueFailed", involved_name="root").exists()


def test_closing_queue_ends_closed_once_its_jobs_finish_through_the_controller() -> None:
    from tests.jobs.controller_kit import set_pods, start, submit, tick

    job = submit()
    start(job)
    queue_close(queue=Queue.objects.get(name="default"))
    assert state("default") == QueueState.CLOSING
    set_pods(job, "Succeeded", exit_code=0)
    tick(job)  # Completed
    report = reconcile_all(NOW)  # the finished job's PodGroup goes, then the queue closes
    assert report.queue_transitions == {"default": ["Closing->Closed"]}
    queue_open(queue=Queue.objects.get(name="default"))
    assert state("default") == QueueState.OPEN
