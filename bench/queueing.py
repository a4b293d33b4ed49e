"""Q-queueing: 15,000 one-pod jobs arriving over time into 30 queues, many sessions, simulated clock.

Mirrors Kueue's baseline performance test in shape: three job classes (small / medium / large =
1 / 5 / 20 CPU running 200 / 500 / 1000 ms), 500 nodes, 30 queues each capped at a thirtieth of
the cluster's CPU (Kueue's per-ClusterQueue nominal quota). Jobs arrive uniformly over
``arrival_window`` simulated seconds (default 0: one burst, as Kueue's test creates its workloads
up front; spread over a minute, this cluster admits every job at the next session); a session runs every ``period`` simulated seconds (Volcano's
default is 1 s) on a snapshot of what has arrived and what still runs; a pod bound at time t runs
until t + its runtime. Time to admission of a job = the session time it was bound minus its
arrival. The engine's wall time is measured per session; the clock itself is simulated.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from datetime import timedelta

from bench.workloads import CONFS, GI, T0, build_nodes
from scheduler.engine.api.cluster_info import ClusterInfo
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.resource import Resource
from scheduler.engine.api.task_info import TaskInfo, TaskTemplate
from scheduler.engine.api.types import PodGroupPhase, TaskStatus
from scheduler.engine.conf import load_conf
from scheduler.engine.framework import run_session

__all__ = ["CLASSES", "QueueingResult", "run_queueing"]

# class -> (cpu milli, runtime seconds, share of jobs)
CLASSES = {"small": (1000, 0.2, 0.6), "medium": (5000, 0.5, 0.3), "large": (20000, 1.0, 0.1)}


@dataclass(slots=True)
class _Job:
    name: str
    kind: str
    queue: str
    arrival: float
    admitted: float | None = None
    node: str = ""
    ends: float = 0.0
    phase: PodGroupPhase = PodGroupPhase.PENDING


@dataclass(slots=True)
class QueueingResult:
    """Figures of one Q-queueing run."""

    sessions: int = 0
    simulated_seconds: float = 0.0
    session_walls: list[float] = field(default_factory=list)
    bound: int = 0
    enqueued: int = 0
    wait_by_class: dict[str, list[float]] = field(default_factory=dict)
    action_walls: dict[str, float] = field(default_factory=dict)
    snapshot_wall: float = 0.0


def _snapshot(now: float, jobs: list[_Job], queues: list[QueueInfo]) -> ClusterInfo:
    templates = {k: TaskTemplate(namespace="bench", labels={"class": k}) for k in CLASSES}
    infos = []
    for job in jobs:
        cpu, _, _ = CLASSES[job.kind]
        request = Resource({"cpu": cpu, "memory": cpu // 1000 * GI, "pods": 1000})
        created = T0 + timedelta(seconds=job.arrival)
        info = JobInfo(
            name=job.name,
            namespace="bench",
            queue=job.queue,
            min_available=1,
            min_resources=Resource({"cpu": cpu, "memory": cpu // 1000 * GI}),
            creation_timestamp=created,
            phase=job.phase,
        )
        info.add_task(
            TaskInfo(
                name=f"{job.name}-worker-0",
                namespace="bench",
                job=info.uid,
                resreq=request,
                status=TaskStatus.RUNNING if job.node else TaskStatus.PENDING,
                node_name=job.node,
                creation_timestamp=created,
                template=templates[job.kind],
            )
        )
        infos.append(info)
    return ClusterInfo.build(
        now=T0 + timedelta(seconds=now), nodes=build_nodes(500), jobs=infos, queues=queues
    )


def run_queueing(
    seed: int, *, jobs_total: int = 15000, arrival_window: float = 0.0, period: float = 1.0
) -> QueueingResult:
    """Return the figures of the whole simulation."""
    rng = random.Random(seed)
    kinds, shares = list(CLASSES), [c[2] for c in CLASSES.values()]
    cap = Resource({"cpu": 500 * 32000 // 30, "memory": 500 * 256 * GI // 30})
    queues = [
        QueueInfo(name=f"q{i}", weight=1, capability=cap, creation_timestamp=T0) for i in range(30)
    ]
    arrivals = sorted(rng.uniform(0, arrival_window) for _ in range(jobs_total))
    pending = [
        _Job(f"job-{i}", rng.choices(kinds, shares)[0], f"q{rng.randrange(30)}", at)
        for i, at in enumerate(arrivals)
    ]
    conf = load_conf(CONFS["default+binpack"])
    result = QueueingResult(wait_by_class={k: [] for k in CLASSES})
    now, live, nxt = 0.0, [], 0
    while True:
        while nxt < len(pending) and pending[nxt].arrival <= now:
            live.append(pending[nxt])
            nxt += 1
        live = [j for j in live if not (j.admitted is not None and j.ends <= now)]
        if live:
            started = time.perf_counter()
            cluster = _snapshot(now, live, queues)
            result.snapshot_wall += time.perf_counter() - started
            decisions = run_session(cluster, conf, uid=f"q-{result.sessions}")
            result.session_walls.append(decisions.timings.session)
            for name, value in decisions.timings.actions.items():
                result.action_walls[name] = result.action_walls.get(name, 0.0) + value
            result.sessions += 1
            result.enqueued += len(decisions.enqueued)
            by_name = {f"bench/{j.name}": j for j in live}
            for uid, phase in decisions.pod_group_phases.items():
                if uid in by_name:
                    by_name[uid].phase = phase
            for pod, node in decisions.binds.items():
                job = by_name[pod.rsplit("-worker-", 1)[0]]
                job.admitted, job.node = now, node
                job.ends = now + CLASSES[job.kind][1]
                result.wait_by_class[job.kind].append(now - job.arrival)
                result.bound += 1
        if nxt >= len(pending) and all(j.admitted is not None for j in live):
            break
        now += period
    result.simulated_seconds = now
    return result
