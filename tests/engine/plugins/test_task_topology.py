"""task-topology's annotations and buckets (Volcano's Test_readTopologyFromPgAnnotations)."""

from __future__ import annotations

import pytest

from scheduler.engine.api.resource import Resource
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.catalogue import plugin_info
from scheduler.engine.plugins.task_topology_manager import (
    AFFINITY_ANNOTATION,
    ANTI_AFFINITY_ANNOTATION,
    TASK_ORDER_ANNOTATION,
    TASK_SPEC_KEY,
    JobManager,
    TaskTopology,
    read_topology,
)


def _task(name: str, role: str, node: str = "") -> TaskInfo:
    return TaskInfo(
        name=name,
        namespace="default",
        job="default/job1",
        resreq=Resource.of(cpu=1000),
        node_name=node,
        annotations={TASK_SPEC_KEY: role},
    )


TASKS = [
    _task("job1-ps-0", "ps"),
    _task("job1-ps-1", "ps"),
    _task("job1-worker-0", "worker"),
    _task("job1-worker-1", "worker"),
    _task("job1-chief-0", "chief"),
    _task("job1-evaluator-0", "evaluator"),
]


def _ann(aff: str, anti: str, order: str) -> dict[str, str]:
    return {AFFINITY_ANNOTATION: aff, ANTI_AFFINITY_ANNOTATION: anti, TASK_ORDER_ANNOTATION: order}


def test_reads_groups_and_order() -> None:
    topology = read_topology(
        _ann("ps,worker;ps,chief", "ps;worker,chief", "ps,worker,chief,evaluator"), TASKS
    )
    assert topology == TaskTopology(
        affinity=[["ps", "worker"], ["ps", "chief"]],
        anti_affinity=[["ps"], ["worker", "chief"]],
        task_order=["ps", "worker", "chief", "evaluator"],
    )


def test_empty_names_are_tolerated() -> None:
    topology = read_topology(
        _ann("ps,worker;ps,,chief,;", "ps;worker,chief;;;", "ps,worker,chief,evaluator,,,"), TASKS
    )
    assert topology == TaskTopology(
        affinity=[["ps", "worker"], ["ps", "", "chief", ""], [""]],
        anti_affinity=[["ps"], ["worker", "chief"], [""], [""], [""]],
        task_order=["ps", "worker", "chief", "evaluator", "", "", ""],
    )


@pytest.mark.parametrize(
    "annotations",
    [
        _ann("$%GF$^trtqwrg^", "ps;worker,chief", "ps"),
        _ann("ps,worker", "ps,ps", "ps,worker"),
        _ann("ps,worker", "ps", "ps,worker,nobody"),
    ],
)
def test_unknown_or_repeated_task_ignores_the_job(annotations: dict[str, str]) -> None:
    assert read_topology(annotations, TASKS) is None


def test_no_annotation_no_topology() -> None:
    assert read_topology({}, TASKS) is None


def test_anti_affine_tasks_get_separate_buckets_and_affine_ones_share() -> None:
    topology = read_topology(
        {AFFINITY_ANNOTATION: "ps,worker", ANTI_AFFINITY_ANNOTATION: "ps"}, TASKS
    )
    assert topology is not None
    manager = JobManager(topology)
    manager.construct(TASKS)

    buckets = [sorted(b.tasks) for b in manager.buckets]
    assert len(buckets) == 2  # the two ps pods repel each other; each worker joins one ps
    assert all(sum("ps" in uid for uid in b) == 1 for b in buckets)
    assert all(sum("worker" in uid for uid in b) == 1 for b in buckets)
    assert manager.bucket_of(TASKS[4]) is None  # chief has no topology
    assert manager.bucket_max_size == 2


def test_catalogue_offers_task_topology() -> None:
    info = plugin_info("task-topology")
    assert info is not None
    assert info.flags == ("enableTaskOrder", "enableNodeOrder")
    assert {a.key for a in info.arguments} == {"task-topology.weight"}
