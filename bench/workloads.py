"""Seeded generators for every benchmark set of ``shared/docs/benchmarks.md`` (engine alone).

Each set is a function ``(seed) -> Workload``: one or more *cases*, each a conf text and a
snapshot builder (a fresh ``ClusterInfo`` per session, since a session mutates its snapshot).
Pods of one task share one ``TaskTemplate`` object, as pods made from one job task spec do, so
node selection caches one mask and score vector per task template.

Node shape: cpu 32, memory 256Gi, pods 110 (a quarter with ``nvidia.com/gpu: 8`` in the mixed
sets). Pod shapes: small 1 CPU / 1Gi, medium 4 CPU / 16Gi, gpu 8 CPU / 64Gi / 1 GPU.
Q-queueing is not a single snapshot but a simulation over many sessions: see ``queueing.py``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta

from bench.builders import (
    CONFS,
    GI,
    T0,
    Case,
    Workload,
    build_nodes,
    cluster,
    job,
    job_of,
    mixed_jobs,
    queues,
)
from bench.guards import p_guards
from scheduler.engine.api.cluster_info import ClusterInfo
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.resource import Resource
from scheduler.engine.api.types import PodGroupPhase
from scheduler.engine.framework.decisions import Decisions

__all__ = ["CONFS", "GI", "SETS", "T0", "Case", "Workload", "build_nodes"]


# --- the sets ------------------------------------------------------------------------------------
def s_gang(seed: int) -> Workload:
    """100 nodes, 1 queue, 10 gang jobs x 100 small pods (minAvailable 100)."""

    def build() -> ClusterInfo:
        jobs = [job(f"gang-{j}", "q0", "small", 100, min_member=100, minute=j) for j in range(10)]
        return cluster(build_nodes(100), jobs, queues([1]))

    return Workload("S-gang", seed, [Case("S-gang", CONFS["default+binpack"], build)])


def s_yk(seed: int) -> Workload:
    """500 nodes, 2 queues, 2 jobs x 5,000 pods of 1 CPU / 10Mi, predicates only, no gang."""

    def build() -> ClusterInfo:
        jobs = [job(f"yk-{j}", f"q{j}", "yk", 5000, min_member=1, minute=j) for j in range(2)]
        return cluster(build_nodes(500), jobs, queues([1, 1]))

    return Workload("S-yk", seed, [Case("S-yk", CONFS["predicates-only"], build)])


M_SHAPES = ((10000, 1), (500, 20), (20, 500), (1, 10000))


def m_shape(seed: int) -> Workload:
    """1,000 and 2,000 nodes; 4 queues 1:1:2:4; the four job shapes; gang on and off."""
    work = Workload("M-shape", seed)
    for nodes in (1000, 2000):
        for jobs_n, pods in M_SHAPES:
            for gang_on in (True, False):

                def build(
                    nodes: int = nodes,
                    jobs_n: int = jobs_n,
                    pods: int = pods,
                    gang_on: bool = gang_on,
                ) -> ClusterInfo:
                    jobs = [
                        job(
                            f"m-{j}",
                            f"q{j % 4}",
                            "small",
                            pods,
                            min_member=pods if gang_on else 1,
                            minute=j,
                        )
                        for j in range(jobs_n)
                    ]
                    return cluster(build_nodes(nodes), jobs, queues([1, 1, 2, 4]))

                label = f"{nodes} nodes, {jobs_n}x{pods}, gang {'on' if gang_on else 'off'}"
                conf = CONFS["default+binpack" if gang_on else "no-gang"]
                work.cases.append(Case(label, conf, build))
    return work


def m_mixed(seed: int) -> Workload:
    """2,000 nodes (a quarter with GPUs), 8 queues 1..8, 400 jobs of three classes."""
    mix = [(0.70, "small", 10), (0.25, "medium", 20), (0.05, "gpu", 8)]

    def build() -> ClusterInfo:
        rng = random.Random(seed)
        jobs = mixed_jobs(rng, 400, mix, 8)
        return cluster(build_nodes(2000, gpu_every=4), jobs, queues(list(range(1, 9))))

    return Workload("M-mixed", seed, [Case("M-mixed", CONFS["default+binpack"], build)])


def l_basic(seed: int) -> Workload:
    """5,000 nodes, 8 queues, 500 gang jobs x 100 small pods, 5,000 pods already running."""

    def build() -> ClusterInfo:
        nodes = build_nodes(5000)
        names = [n.name for n in nodes]
        running = [
            job(
                f"run-{j}",
                f"q{j % 8}",
                "small",
                100,
                min_member=100,
                minute=j,
                running_on=names[j * 100 : (j + 1) * 100],
            )
            for j in range(50)
        ]
        pending = [
            job(f"l-{j}", f"q{j % 8}", "small", 100, min_member=100, minute=100 + j)
            for j in range(500)
        ]
        return cluster(nodes, running + pending, queues([1] * 8))

    return Workload("L-basic", seed, [Case("L-basic", CONFS["default+binpack"], build)])


def l_mixed(seed: int) -> Workload:
    """5,000 nodes (20% tainted, a quarter with GPUs), 16 queues on two levels, 5,000 jobs."""
    mix = [(0.60, "small", 4), (0.30, "medium", 10), (0.10, "gpu", 8)]

    def build() -> ClusterInfo:
        rng = random.Random(seed)
        nodes = build_nodes(5000, gpu_every=4, taint_fraction=0.2, rng=rng)
        jobs = mixed_jobs(rng, 5000, mix, 16, tolerate_fraction=0.2)
        queues = []
        for i in range(16):
            parent = f"team-{i // 4}"
            queues.append(
                QueueInfo(
                    name=f"q{i}",
                    weight=1 + i % 4,
                    parent=parent,
                    creation_timestamp=T0,
                    annotations={
                        "volcano.sh/hierarchy": f"root/{parent}/q{i}",
                        "volcano.sh/hierarchy-weights": f"1/{1 + i // 4}/{1 + i % 4}",
                    },
                )
            )
        queues += [
            QueueInfo(name=f"team-{t}", weight=1 + t, creation_timestamp=T0) for t in range(4)
        ]
        return cluster(nodes, jobs, queues)

    return Workload("L-mixed", seed, [Case("L-mixed", CONFS["default+binpack"], build)])


def p_preempt(seed: int) -> Workload:
    """1,000 nodes 90% full of low-priority pods; 1,000 high-priority pods of 24 CPU.

    The low-priority pods are in the reclaimable queue ``low``, the preemptors in ``high``, so
    ``reclaim`` does the work (``preempt`` only evicts within a queue). The set gives no weights;
    ``high`` has weight 3 so that its deserved share (24,000 of the 32,000 CPU) is what its
    1,000 pods ask for: with equal weights Volcano's rules would let it reclaim only up to half
    the cluster. The second session runs once the victims are gone and binds the preemptors.
    """

    def build(gone: frozenset[str] = frozenset()) -> ClusterInfo:
        nodes = build_nodes(1000)
        request = Resource({"cpu": 7200, "memory": 8 * GI, "pods": 1000})
        big = Resource({"cpu": 24000, "memory": 32 * GI, "pods": 1000})
        jobs = []
        for n, node in enumerate(nodes):
            for k in range(4):
                name = f"low-{n}-{k}"
                if f"bench/{name}-worker-0" in gone:
                    continue
                jobs.append(
                    job_of(
                        name,
                        "low",
                        request,
                        1,
                        min_member=1,
                        created=T0,
                        priority=100,
                        running_on=[node.name],
                    )
                )
        for j in range(1000):
            created = T0 + timedelta(minutes=10, seconds=j)
            jobs.append(
                job_of(
                    f"high-{j}",
                    "high",
                    big,
                    1,
                    min_member=1,
                    created=created,
                    priority=1000,
                    phase=PodGroupPhase.INQUEUE,
                )
            )
        queues = [
            QueueInfo(name="low", weight=1, reclaimable=True, creation_timestamp=T0),
            QueueInfo(name="high", weight=3, reclaimable=False, creation_timestamp=T0),
        ]
        return cluster(nodes, jobs, queues)

    def after(decisions: Decisions) -> ClusterInfo:
        return build(frozenset(e.task for e in decisions.evictions))

    return Workload("P-preempt", seed, [Case("P-preempt", CONFS["preempt"], build, after)])


SETS: dict[str, Callable[[int], Workload]] = {
    "S-gang": s_gang,
    "S-yk": s_yk,
    "M-shape": m_shape,
    "M-mixed": m_mixed,
    "L-basic": l_basic,
    "L-mixed": l_mixed,
    "P-preempt": p_preempt,
    "P-guards": p_guards,
}
