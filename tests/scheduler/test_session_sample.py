"""One session's sample built from a snapshot and decisions (pure: no database)."""

from __future__ import annotations

from scheduler.engine.api.types import TaskStatus
from scheduler.engine.framework.decisions import Decisions, Eviction
from scheduler.session_sample import build_sample
from tests.engine.builders import build_cluster, build_node, build_pod, build_pod_group, build_queue


def test_a_sample_counts_pods_per_queue_and_evictions_per_queue() -> None:
    running = [build_pod(f"r{i}", status=TaskStatus.RUNNING, node="n1") for i in range(3)]
    waiting = [build_pod(f"w{i}") for i in range(2)]
    cluster = build_cluster(
        [build_node("n1")],
        [
            build_pod_group("busy", running, queue="q1"),
            build_pod_group("late", waiting, queue="q2"),
        ],
        [build_queue("q1"), build_queue("q2")],
    )
    victim = running[0].uid
    decisions = Decisions(evictions=[Eviction(task=victim, node="n1", reason="preempt")])

    data = build_sample(cluster=cluster, decisions=decisions, job_shares=None, e2e_ms=5.0,
                        binds=0, evictions=1)  # fmt: skip

    queues = data["queues"]
    q1, q2 = queues["name"].index("q1"), queues["name"].index("q2")
    assert (queues["pods_running"][q1], queues["pods_pending"][q1]) == (3, 0)
    assert (queues["pods_running"][q2], queues["pods_pending"][q2]) == (0, 2)
    assert data["counts"]["evictions_by_queue"] == {"q1": 1}
    assert data["counts"]["evictions_by_action"] == {"preempt": 1}
