"""Properties on random clusters: capacity is never exceeded, gangs are all or nothing,
Closed queues get nothing new (with a plugin refusing them), and the same input gives the
same decisions."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler.engine.api.types import QueueState, TaskStatus
from scheduler.engine.framework import run_session
from tests.engine.builders import (
    build_cluster,
    build_node,
    build_pod,
    build_pod_group,
    build_queue,
    conf,
)

CPU = st.sampled_from(["250m", "500m", "1", "2", "3"])
MEM = st.sampled_from(["256Mi", "1Gi", "2Gi"])

node_st = st.tuples(
    st.sampled_from(["1", "2", "4", "8"]), st.sampled_from(["1Gi", "4Gi", "8Gi"]), st.integers(0, 6)
)
job_st = st.tuples(
    st.integers(1, 5),
    st.integers(0, 5),
    CPU,
    MEM,
    st.sampled_from(["qa", "qb", "closed"]),
    st.integers(0, 100),
    st.integers(0, 3),
)


def build(nodes, jobs):
    node_infos = [build_node(f"n{i}", cpu=c, memory=m, pods=p) for i, (c, m, p) in enumerate(nodes)]
    job_infos = []
    for j, (size, min_member, cpu, mem, queue, prio, running) in enumerate(jobs):
        pods = []
        for i in range(size):
            host = node_infos[(i + j) % len(node_infos)].name if i < running else ""
            status = TaskStatus.RUNNING if host else TaskStatus.PENDING
            pods.append(
                build_pod(
                    f"j{j}-task-{i}", cpu=cpu, memory=mem, status=status, node=host, minutes=j
                )
            )
        job_infos.append(
            build_pod_group(
                f"j{j}",
                pods,
                queue=queue,
                min_member=min(min_member, size),
                priority=prio,
                minutes=j,
            )
        )
    queues = [
        build_queue("qa"),
        build_queue("qb", weight=2),
        build_queue("closed", state=QueueState.CLOSED),
    ]
    return build_cluster(node_infos, job_infos, queues)


def closed_refused(ssn_queue, task):
    return ssn_queue.state == QueueState.OPEN


@settings(max_examples=60, deadline=None)
@given(st.lists(node_st, min_size=1, max_size=5), st.lists(job_st, min_size=1, max_size=6))
def test_random_clusters_keep_every_rule(nodes, jobs):
    from scheduler.engine.framework import registry
    from tests.engine.plugins.probe import ProbePlugin

    registry.ensure_loaded()
    saved = registry._PLUGINS.get("probe")
    registry._PLUGINS["probe"] = ProbePlugin
    ProbePlugin.answers = {"allocatable": closed_refused}
    try:
        cluster = build(nodes, jobs)
        before_used = cluster.arrays.used.copy()
        decisions = run_session(
            cluster,
            conf("enqueue, allocate, backfill", ("priority", "gang", "conformance", "probe")),
        )
        again = run_session(
            build(nodes, jobs),
            conf("enqueue, allocate, backfill", ("priority", "gang", "conformance", "probe")),
        )
    finally:
        if saved is None:
            registry._PLUGINS.pop("probe", None)
        ProbePlugin.answers = {}
    # 1. No node holds more than its allocatable (running pods placed by the builder may
    #    already overcommit a node; then nothing new may land there).
    arrays = cluster.arrays
    for node in cluster.node_list:
        added = arrays.used[node.index] - before_used[node.index]
        if added.any():
            assert (arrays.used[node.index] <= arrays.allocatable[node.index]).all()
    # 2. A gang gets at least minMember placed (ready) or nothing new bound.
    for job in cluster.jobs.values():
        bound = [t for t in job.tasks.values() if t.uid in decisions.binds]
        if bound:
            assert job.ready_task_num() >= job.min_available
    # 3. Nothing new in the Closed queue.
    queue_of = {t.uid: job.queue for job in cluster.jobs.values() for t in job.tasks.values()}
    assert all(queue_of[uid] != "closed" for uid in decisions.binds)
    # 4. Deterministic.
    assert decisions == again
