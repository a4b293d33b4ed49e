"""Queue rows: the default queue exists and stays; the database refuses bad queues."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.db import IntegrityError, transaction

from queues.models import Queue, QueueProtectedError, QueueState

pytestmark = pytest.mark.django_db


def test_default_queue_exists_after_migrate() -> None:
    queue = Queue.objects.get(name="default")
    assert (queue.weight, queue.reclaimable, queue.state) == (1, True, QueueState.OPEN)


def test_default_queue_cannot_be_deleted_one_by_one() -> None:
    with pytest.raises(QueueProtectedError, match="default"):
        Queue.objects.get(name="default").delete()
    assert Queue.objects.filter(name="default").exists()


def test_bulk_delete_including_default_deletes_nothing() -> None:
    Queue.objects.create(name="batch")
    with pytest.raises(QueueProtectedError):
        Queue.objects.all().delete()
    assert set(Queue.objects.values_list("name", flat=True)) == {"default", "batch", "root"}


def test_other_queues_can_be_deleted() -> None:
    Queue.objects.create(name="batch")
    Queue.objects.filter(name="batch").delete()
    assert not Queue.objects.filter(name="batch").exists()


@dataclass(frozen=True)
class Bad:
    name: str
    fields: dict[str, Any]


BAD_ROWS = [
    Bad("duplicate name", {"name": "default"}),
    Bad("weight zero", {"name": "zero", "weight": 0}),
    Bad("unknown state", {"name": "odd", "state": "Paused"}),
    Bad("own parent", {"name": "loop", "parent": "loop"}),
    Bad("empty name", {"name": ""}),
]


@pytest.mark.parametrize("bad", BAD_ROWS, ids=lambda b: b.name)
def test_database_refuses_bad_queue_without_writing_a_row(bad: Bad) -> None:
    before = Queue.objects.count()
    with pytest.raises(IntegrityError), transaction.atomic():
        Queue.objects.create(**bad.fields)
    assert Queue.objects.count() == before


def test_bulk_update_cannot_sneak_in_weight_zero() -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Queue.objects.filter(name="default").update(weight=0)
    assert Queue.objects.get(name="default").weight == 1


def test_saving_bumps_resource_version_and_keeps_uid() -> None:
    queue = Queue.objects.create(name="batch")
    uid, version = queue.uid, queue.resource_version
    queue.weight = 5
    queue.save()
    queue.refresh_from_db()
    assert (queue.uid, queue.resource_version) == (uid, version + 1)
