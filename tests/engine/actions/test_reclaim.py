"""Reclaim action: starving jobs take back what other, reclaimable queues borrowed."""

from __future__ import annotations

import time

from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.types import PodGroupPhase, QueueState, TaskStatus
from scheduler.engine.conf import load_conf
from scheduler.engine.framework import Eviction, run_session
from tests.engine.builders import T0, build_cluster, build_node, build_pod, build_pod_group, gang

CONF = """\
actions: "enqueue, allocate, reclaim"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
"""


def q(name: str, **kwargs: object) -> QueueInfo:
    return QueueInfo(name=name, creation_timestamp=T0, **kwargs)  # type: ignore[arg-type]


def running_job(
    name: str, n: int, *, queue: str, node: str = "n1", status: TaskStatus = TaskStatus.RUNNING
) -> JobInfo:
    pods = [
        build_pod(f"{name}-task-{i}", status=status, node=node, namespace="ns2") for i in range(n)
    ]
    return build_pod_group(name, pods, queue=queue, namespace="ns2", phase=PodGroupPhase.RUNNING)


def test_eviction_names_the_reason_and_the_reclaimer():
    big = running_job("big", 4, queue="q2")
    small = gang("small", 1, queue="q1", minutes=1)
    cluster = build_cluster([build_node("n1", cpu="4")], [big, small], [q("q1"), q("q2")])
    decisions = run_session(cluster, load_conf(CONF))
    assert decisions.evictions == [Eviction("ns2/big-task-2", "n1", "reclaim", "ns/small-task-0")]
    assert decisions.pipelined == {"ns/small-task-0": "n1"}


def test_only_running_tasks_are_reclaimed():
    bound = running_job("big", 4, queue="q2", status=TaskStatus.BOUND)
    small = gang("small", 1, queue="q1", minutes=1)
    cluster = build_cluster([build_node("n1", cpu="4")], [bound, small], [q("q1"), q("q2")])
    assert run_session(cluster, load_conf(CONF)).evictions == []


def test_a_closed_queue_does_not_reclaim():
    big = running_job("big", 4, queue="q2")
    small = gang("small", 1, queue="q1", minutes=1)
    queues = [q("q1", state=QueueState.CLOSED), q("q2")]
    cluster = build_cluster([build_node("n1", cpu="4")], [big, small], queues)
    assert run_session(cluster, load_conf(CONF)).evictions == []


def test_never_preempting_pods_do_not_reclaim():
    big = running_job("big", 4, queue="q2")
    small = gang("small", 1, queue="q1", minutes=1)
    next(iter(small.tasks.values())).preemption_policy = "Never"
    cluster = build_cluster([build_node("n1", cpu="4")], [big, small], [q("q1"), q("q2")])
    assert run_session(cluster, load_conf(CONF)).evictions == []


def test_queue_at_its_deserved_share_does_not_reclaim():
    mine = running_job("mine", 2, queue="q1", node="n2")
    big = running_job("big", 4, queue="q2")
    small = gang("small", 1, queue="q1", minutes=1)
    # q1 already holds its deserved 2 cpu (6 cpu split 1:2): one more pod is not preemptive.
    cluster = build_cluster(
        [build_node("n1", cpu="4"), build_node("n2", cpu="2")],
        [mine, big, small],
        [q("q1"), q("q2", weight=2)],
    )
    decisions = run_session(cluster, load_conf(CONF))
    assert decisions.evictions == []


def test_reclaim_walks_each_node_once_per_task_even_on_a_large_cluster():
    # 400 full nodes of borrowed work; 100 pods of another queue each need a whole node's worth.
    nodes = [build_node(f"n{i:04d}", cpu="8", memory="64Gi") for i in range(400)]
    jobs = []
    for i in range(400):
        pods = [
            build_pod(f"low{i}-task-{k}", cpu="2", status=TaskStatus.RUNNING, node=f"n{i:04d}")
            for k in range(4)
        ]
        jobs.append(build_pod_group(f"low{i}", pods, queue="low", phase=PodGroupPhase.RUNNING))
    for i in range(100):
        jobs.append(
            build_pod_group(f"high{i}", [build_pod(f"high{i}-task-0", cpu="6")], queue="high")
        )
    queues = [q("low"), q("high", weight=10)]
    cluster = build_cluster(nodes, jobs, queues)
    text = CONF.replace('"enqueue, allocate, reclaim"', '"reclaim"')
    started = time.perf_counter()
    decisions = run_session(cluster, load_conf(text))
    elapsed = time.perf_counter() - started
    assert len(decisions.pipelined) == 100
    assert len(decisions.evictions) == 300  # three 2-cpu victims per 6-cpu pod
    assert elapsed < 5, elapsed
