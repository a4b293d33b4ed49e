"""The read's generated constructors and copies make the same objects as the engine's own."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from scheduler.cache.pod_tasks import TASK_FIELDS, new_task
from scheduler.cache.slot_objects import slot_copier, tuple_maker
from scheduler.engine.api.node_info import NodeUsage
from scheduler.engine.api.resource import Resource
from scheduler.engine.api.task_info import TaskInfo, TaskTemplate
from scheduler.engine.api.types import TaskStatus


def fields(**changed: object) -> dict[str, object]:
    values: dict[str, object] = {
        "name": "p-0", "namespace": "ns", "job": "", "resreq": Resource({"cpu": 500}),
        "limits": None, "status": TaskStatus.RUNNING, "node_name": "n1", "priority": 7,
        "role": "worker", "preemptable": False, "preemption_policy": "Never",
        "priority_class_name": "high", "nominated_node_name": "n2",
        "creation_timestamp": dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
        "annotations": {"a": "b"}, "template": TaskTemplate(namespace="ns"),
        "device_containers": None, "numa": None, "scheduling_gated": True, "scheduled_at": None,
    }  # fmt: skip
    values.update(changed)
    return values


@pytest.mark.parametrize("resreq", [Resource({"cpu": 500}), Resource({})], ids=["burst", "empty"])
def test_a_task_made_from_a_tuple_is_the_task_its_constructor_makes(resreq: Resource) -> None:
    given = fields(resreq=resreq)
    made = new_task(tuple(given[name] for name in TASK_FIELDS))
    built = TaskInfo(**given)  # type: ignore[arg-type]
    for name in TaskInfo.__slots__:
        assert getattr(made, name) == getattr(built, name), name
    assert made.uid == "ns/p-0"
    assert made.init_resreq is resreq
    assert made.best_effort == resreq.is_best_effort()


def test_a_copy_has_every_slot_and_is_a_new_object() -> None:
    task = TaskInfo(**fields())  # type: ignore[arg-type]
    copy = slot_copier(TaskInfo)(task)
    copy.status = TaskStatus.PENDING
    assert task.status == TaskStatus.RUNNING
    assert all(getattr(copy, n) == getattr(task, n) for n in TaskInfo.__slots__ if n != "status")


def test_a_maker_refuses_fields_the_class_does_not_have() -> None:
    with pytest.raises(TypeError, match="no fields"):
        tuple_maker(TaskInfo, ["name", "colour"])


def test_a_frozen_object_made_from_a_tuple_equals_its_constructors_and_stays_frozen() -> None:
    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    make = tuple_maker(NodeUsage, ("metrics_time", "cpu_usage_avg"))
    made = make((now, {"10m": 50.0}))
    assert made == NodeUsage(metrics_time=now, cpu_usage_avg={"10m": 50.0})
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.metrics_time = None  # type: ignore[misc]
