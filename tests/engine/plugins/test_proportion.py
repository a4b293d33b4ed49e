"""Proportion plugin: queues deserve a weighted, water-filled share and are held to it."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.types import PodGroupPhase, QueueState, TaskStatus
from scheduler.engine.framework import Session, open_session, run_session
from scheduler.engine.plugins.proportion import ProportionPlugin, QueueAttr
from tests.engine.builders import (
    T0,
    build_cluster,
    build_node,
    build_pod,
    build_pod_group,
    conf,
    gang,
    res,
)

PROPORTION = ("priority", "gang", "proportion")


def q(name: str, **kwargs: object) -> QueueInfo:
    return QueueInfo(name=name, creation_timestamp=T0, **kwargs)  # type: ignore[arg-type]


def attrs(ssn: Session) -> dict[str, QueueAttr]:
    plugin = ssn.plugins["proportion"]
    assert isinstance(plugin, ProportionPlugin)
    return plugin.attrs


def deserved_cpu(ssn: Session, queue: str) -> float:
    return float(attrs(ssn)[queue].deserved[ssn.resource_index.position["cpu"]])


@dataclass
class Case:
    name: str
    queues: list[QueueInfo]
    wants: dict[str, int]  # queue -> pods of 1 cpu asked for
    expected: dict[str, float]  # queue -> deserved cpu (milli)
    cpu: str = "8"
    extra: dict[str, object] = field(default_factory=dict)


CASES = [
    Case("equal weights split evenly", [q("a"), q("b")], {"a": 8, "b": 8}, {"a": 4000, "b": 4000}),
    Case(
        "weights 1:3",
        [q("a", weight=1), q("b", weight=3)],
        {"a": 8, "b": 8},
        {"a": 2000, "b": 6000},
    ),
    Case(
        "a small request frees the rest for others",
        [q("a"), q("b")],
        {"a": 1, "b": 8},
        {"a": 1000, "b": 7000},
    ),
    Case(
        "capability caps deserved",
        [q("a", capability=res(cpu="1")), q("b")],
        {"a": 8, "b": 8},
        {"a": 1000, "b": 7000},
    ),
    Case(
        "guarantee is deserved whatever the weight",
        [q("a", weight=1, guarantee=res(cpu="5")), q("b", weight=9)],
        {"a": 8, "b": 8},
        {"a": 5000, "b": 3000},
    ),
    Case(
        "weight 0 deserves nothing",
        [q("a", weight=0), q("b")],
        {"a": 8, "b": 8},
        {"a": 0, "b": 8000},
    ),
    Case(
        "nobody asks for more than the cluster has",
        [q("a"), q("b")],
        {"a": 2, "b": 3},
        {"a": 2000, "b": 3000},
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_water_filled_deserved(case: Case) -> None:
    jobs = [gang(f"{name}-job", n, min_member=1, queue=name) for name, n in case.wants.items()]
    cluster = build_cluster([build_node("n1", cpu=case.cpu, memory="64Gi")], jobs, case.queues)
    ssn = open_session(cluster, conf("allocate", PROPORTION))
    for queue, cpu in case.expected.items():
        assert deserved_cpu(ssn, queue) == pytest.approx(cpu, abs=1)


def test_queues_with_no_jobs_take_no_part():
    cluster = build_cluster(
        [build_node("n1", cpu="8", memory="64Gi")],
        [gang("a-job", 8, min_member=1, queue="a")],
        [q("a"), q("idle", weight=100)],
    )
    ssn = open_session(cluster, conf("allocate", PROPORTION))
    assert set(attrs(ssn)) == {"a"}
    assert deserved_cpu(ssn, "a") == 8000


def test_allocate_stops_each_queue_at_its_deserved_share():
    jobs = [gang("a-job", 8, min_member=1, queue="a"), gang("b-job", 8, min_member=1, queue="b")]
    cluster = build_cluster(
        [build_node("n1", cpu="8", memory="64Gi")], jobs, [q("a", weight=1), q("b", weight=3)]
    )
    decisions = run_session(cluster, conf("allocate", PROPORTION))
    placed = [uid.split("/")[1].split("-")[0] for uid in decisions.binds]
    assert placed.count("a") == 2
    assert placed.count("b") == 6


def test_allocated_share_and_overused_follow_allocation_events():
    job = gang("a-job", 4, min_member=1, queue="a")
    cluster = build_cluster([build_node("n1", cpu="8", memory="64Gi")], [job], [q("a"), q("b")])
    ssn = open_session(cluster, conf("allocate", PROPORTION))
    attr = attrs(ssn)["a"]
    queue = ssn.queues["a"]
    assert attr.share == 0
    assert not ssn.overused(queue)
    stmt = ssn.statement()
    for task in list(job.tasks.values()):
        stmt.allocate(task, ssn.nodes["n1"])
    assert attr.share == pytest.approx(1.0)
    assert ssn.overused(queue)
    stmt.discard()
    assert attr.share == 0
    assert not ssn.overused(queue)
    assert not attr.allocated.any()


def test_allocatable_refuses_closed_queues_and_tasks_beyond_deserved():
    job = gang("a-job", 3, min_member=1, queue="a")
    cluster = build_cluster(
        [build_node("n1", cpu="8", memory="64Gi")],
        [job, gang("b-job", 8, min_member=1, queue="b")],
        [q("a", capability=res(cpu="2")), q("b")],
    )
    ssn = open_session(cluster, conf("allocate", PROPORTION))
    task = next(iter(job.tasks.values()))
    assert ssn.allocatable(ssn.queues["a"], task)
    ssn.statement().allocate(task, ssn.nodes["n1"])
    second = list(job.tasks.values())[1]
    assert ssn.allocatable(ssn.queues["a"], second)
    ssn.statement().allocate(second, ssn.nodes["n1"])
    assert not ssn.allocatable(ssn.queues["a"], list(job.tasks.values())[2])
    ssn.queues["a"].state = QueueState.CLOSED
    assert not ssn.allocatable(ssn.queues["a"], list(job.tasks.values())[2])


def test_enqueue_vote_counts_what_admitted_jobs_reserve():
    first = gang("first", 1, queue="a", phase=PodGroupPhase.PENDING, min_resources=res(cpu="2"))
    second = gang(
        "second", 1, queue="a", phase=PodGroupPhase.PENDING, min_resources=res(cpu="1"), minutes=1
    )
    cluster = build_cluster(
        [build_node("n1", cpu="8", memory="64Gi")],
        [first, second],
        [q("a", capability=res(cpu="2"))],
    )
    ssn = open_session(cluster, conf("enqueue", PROPORTION))
    assert ssn.job_enqueueable(first)
    ssn.job_enqueued(first)
    assert not ssn.job_enqueueable(second)


def test_enqueue_vote_rejects_jobs_of_a_closed_queue_even_without_min_resources():
    job = gang("j", 1, queue="a", phase=PodGroupPhase.PENDING)
    cluster = build_cluster([build_node("n1")], [job], [q("a", state=QueueState.CLOSED)])
    ssn = open_session(cluster, conf("enqueue", PROPORTION))
    assert not ssn.job_enqueueable(job)


def test_reclaimable_gives_up_tasks_only_down_to_deserved():
    running = [
        build_pod(f"big-task-{i}", status=TaskStatus.RUNNING, node="n1", namespace="ns")
        for i in range(4)
    ]
    big = build_pod_group("big", running, queue="b", phase=PodGroupPhase.RUNNING)
    want = gang("want", 2, min_member=1, queue="a", minutes=1)
    cluster = build_cluster(
        [build_node("n1", cpu="4", memory="64Gi")], [big, want], [q("a"), q("b")]
    )
    ssn = open_session(cluster, conf("reclaim", ("proportion",)))
    reclaimer = next(iter(want.tasks.values()))
    victims = ssn.reclaimable(reclaimer, running)
    assert [v.name for v in victims] == ["big-task-0", "big-task-1"]


def test_queue_order_prefers_priority_then_smaller_share():
    jobs = [gang("a-job", 2, queue="a"), gang("b-job", 2, queue="b"), gang("c-job", 2, queue="c")]
    cluster = build_cluster(
        [build_node("n1", cpu="6", memory="64Gi")], jobs, [q("a"), q("b"), q("c", priority=5)]
    )
    ssn = open_session(cluster, conf("allocate", ("proportion",)))
    ssn.statement().allocate(next(iter(jobs[0].tasks.values())), ssn.nodes["n1"])
    a, b, c = (ssn.queues[n] for n in "abc")
    assert ssn.queue_order_fn(c, b)
    assert ssn.queue_order_fn(b, a)
