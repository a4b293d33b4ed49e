"""Opening and closing queues follows Volcano's queue controller."""

from __future__ import annotations

import pytest

from queues.models import PodGroup, PodGroupPhase, Queue, QueueState
from queues.services import queue_close, queue_open

pytestmark = pytest.mark.django_db


def test_closing_an_empty_queue_closes_it() -> None:
    queue = queue_close(queue=Queue.objects.create(name="batch"))
    queue.refresh_from_db()
    assert queue.state == QueueState.CLOSED


def test_closing_a_queue_with_running_gangs_leaves_it_closing() -> None:
    queue = Queue.objects.create(name="batch")
    PodGroup.objects.create(name="pg", queue="batch", phase=PodGroupPhase.RUNNING)
    queue_close(queue=queue)
    queue.refresh_from_db()
    assert queue.state == QueueState.CLOSING


def test_opening_a_closed_queue_opens_it() -> None:
    queue = Queue.objects.create(name="batch", state=QueueState.CLOSED)
    queue_open(queue=queue)
    queue.refresh_from_db()
    assert queue.state == QueueState.OPEN
