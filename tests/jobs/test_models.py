"""Job-side rows: names unique per namespace, phases and enums checked by the database."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, transaction

from core.models import Event, Pod, PriorityClass
from jobs.models import Command, Job
from queues.models import PodGroup

pytestmark = pytest.mark.django_db


def test_system_priority_classes_exist_after_migrate() -> None:
    values = dict(PriorityClass.objects.values_list("name", "value"))
    assert values["system-cluster-critical"] == 2_000_000_000
    assert values["system-node-critical"] == 2_000_001_000


def test_same_job_name_in_two_namespaces_is_fine() -> None:
    Job.objects.create(namespace="team-a", name="train")
    Job.objects.create(namespace="team-b", name="train")
    assert Job.objects.filter(name="train").count() == 2


@pytest.mark.parametrize(
    ("model", "fields"),
    [
        (Job, {"name": "j", "phase": "Sleeping"}),
        (Job, {"name": "j", "min_success": 0}),
        (PodGroup, {"name": "pg", "phase": "Queued"}),
        (Pod, {"name": "p", "phase": "Done"}),
        (Pod, {"name": "p", "task_status": "Placed"}),
        (Command, {"name": "c", "action": "SyncJob", "target_name": "j"}),
        (Event, {"involved_kind": "Job", "involved_name": "j", "reason": "x", "type": "Info"}),
        (PriorityClass, {"name": "p2", "value": 1, "preemption_policy": "Sometimes"}),
    ],
    ids=lambda value: value.__name__ if isinstance(value, type) else "",
)
def test_database_refuses_unknown_enum_values(model: Any, fields: dict[str, Any]) -> None:
    from django.utils import timezone

    if model is Event:
        fields = {**fields, "first_timestamp": timezone.now(), "last_timestamp": timezone.now()}
    with pytest.raises(IntegrityError), transaction.atomic():
        model.objects.create(**fields)
    assert not model.objects.filter(name=fields.get("name", "")).exclude(name="").exists()


def test_duplicate_job_name_in_a_namespace_writes_nothing() -> None:
    Job.objects.create(name="train")
    with pytest.raises(IntegrityError), transaction.atomic():
        Job.objects.create(name="train", queue="other")
    assert list(Job.objects.values_list("queue", flat=True)) == ["default"]


def test_only_one_global_default_priority_class() -> None:
    PriorityClass.objects.create(name="normal", value=0, global_default=True)
    with pytest.raises(IntegrityError), transaction.atomic():
        PriorityClass.objects.create(name="other", value=1, global_default=True)
    assert not PriorityClass.objects.filter(name="other").exists()


def test_deleting_a_job_deletes_its_tasks_pods_and_groups() -> None:
    job = Job.objects.create(name="train")
    job.tasks.create(index=0, name="worker", replicas=1)
    group = PodGroup.objects.create(name="train", job=job)
    Pod.objects.create(name="train-worker-0", job=job, pod_group=group)
    job.delete()
    assert (PodGroup.objects.count(), Pod.objects.count()) == (0, 0)
