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
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from scheduler.engine.api.cluster_info import ClusterInfo
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.node_info import NodeInfo, Taint
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.resource import Resource
from scheduler.engine.api.task_info import TaskInfo, TaskTemplate, Toleration
from scheduler.engine.api.types import PodGroupPhase, TaskStatus

__all__ = ["CONFS", "SETS", "Case", "Workload", "build_nodes", "shape"]

T0 = datetime(2026, 1, 1, tzinfo=UTC)
GI = 1024**3 * 1000  # one Gi of memory in milli-units
MI = 1024**2 * 1000
GPU = "nvidia.com/gpu"

_TIER1 = "- plugins:\n  - name: priority\n  - name: gang\n  - name: conformance\n"
_TIER2 = (
    "- plugins:\n  - name: overcommit\n  - name: drf\n  - name: predicates\n"
    "  - name: proportion\n  - name: nodeorder\n  - name: binpack\n"
)
CONFS = {
    "default+binpack": f'actions: "enqueue, allocate, backfill"\ntiers:\n{_TIER1}{_TIER2}',
    "no-gang": (
        'actions: "enqueue, allocate, backfill"\ntiers:\n- plugins:\n  - name: priority\n'
        "  - name: conformance\n" + _TIER2
    ),
    "predicates-only": 'actions: "enqueue, allocate, backfill"\ntiers:\n- plugins:\n'
    "  - name: predicates\n",
    "preempt": f'actions: "enqueue, allocate, preempt, reclaim, backfill"\ntiers:\n{_TIER1}{_TIER2}',
}


def shape(kind: str) -> Resource:
    """Return the request of a pod shape (``small``, ``medium``, ``gpu``, ``yk``), plus a pod."""
    amounts = {
        "small": {"cpu": 1000, "memory": GI},
        "medium": {"cpu": 4000, "memory": 16 * GI},
        "gpu": {"cpu": 8000, "memory": 64 * GI, GPU: 1000},
        "yk": {"cpu": 1000, "memory": 10 * MI},
    }[kind]
    return Resource({**amounts, "pods": 1000})


@dataclass(slots=True)
class Case:
    """One session to time: a label, a conf text and a snapshot builder."""

    label: str
    conf: str
    build: Callable[[], ClusterInfo]


@dataclass(slots=True)
class Workload:
    """A benchmark set: its cases and a line describing what was generated."""

    name: str
    seed: int
    cases: list[Case] = field(default_factory=list)
    note: str = ""


def build_nodes(
    count: int, *, gpu_every: int = 0, taint_fraction: float = 0.0, rng: random.Random | None = None
) -> list[NodeInfo]:
    """Return ``count`` nodes of the standard shape; every ``gpu_every``-th one carries 8 GPUs."""
    nodes = []
    tainted = set()
    if taint_fraction and rng is not None:
        tainted = set(rng.sample(range(count), int(count * taint_fraction)))
    for i in range(count):
        amounts = {"cpu": 32000, "memory": 256 * GI, "pods": 110_000}
        if gpu_every and i % gpu_every == 0:
            amounts[GPU] = 8000
        name = f"node-{i:05d}"
        nodes.append(
            NodeInfo(
                name=name,
                allocatable=Resource(amounts),
                labels={"kubernetes.io/hostname": name, "zone": f"zone-{i % 8}"},
                taints=(Taint("dedicated", "special", "NoSchedule"),) if i in tainted else (),
            )
        )
    return nodes


def _job(
    name: str,
    queue: str,
    kind: str,
    pods: int,
    *,
    min_member: int,
    minute: int,
    priority: int = 0,
    template: TaskTemplate | None = None,
    running_on: list[str] | None = None,
    phase: PodGroupPhase = PodGroupPhase.PENDING,
) -> JobInfo:
    """Return a job of ``pods`` identical pods; ``running_on`` places them Running on nodes."""
    created = T0 + timedelta(seconds=minute)
    request = shape(kind) if kind in ("small", "medium", "gpu", "yk") else Resource()
    return _job_of(
        name,
        queue,
        request,
        pods,
        min_member=min_member,
        created=created,
        priority=priority,
        template=template,
        running_on=running_on,
        phase=phase,
    )


def _job_of(
    name: str,
    queue: str,
    request: Resource,
    pods: int,
    *,
    min_member: int,
    created: datetime,
    priority: int = 0,
    template: TaskTemplate | None = None,
    running_on: list[str] | None = None,
    phase: PodGroupPhase = PodGroupPhase.PENDING,
) -> JobInfo:
    shared = template or TaskTemplate(namespace="bench", labels={"app": name})
    job = JobInfo(
        name=name,
        namespace="bench",
        queue=queue,
        min_available=min_member,
        min_resources=None if min_member == 0 else _scaled(request, min_member),
        priority=priority,
        creation_timestamp=created,
        phase=PodGroupPhase.RUNNING if running_on else phase,
    )
    for i in range(pods):
        node = running_on[i] if running_on else ""
        job.add_task(
            TaskInfo(
                name=f"{name}-worker-{i}",
                namespace="bench",
                job=job.uid,
                resreq=request,
                status=TaskStatus.RUNNING if node else TaskStatus.PENDING,
                node_name=node,
                priority=priority,
                role="worker",
                creation_timestamp=created,
                template=shared,
            )
        )
    return job


def _scaled(request: Resource, times: int) -> Resource:
    return Resource({k: v * times for k, v in request.items() if k != "pods"})


def _queues(weights: list[int], **extra: object) -> list[QueueInfo]:
    return [
        QueueInfo(name=f"q{i}", weight=w, creation_timestamp=T0, **extra)  # type: ignore[arg-type]
        for i, w in enumerate(weights)
    ]


def _cluster(nodes: list[NodeInfo], jobs: list[JobInfo], queues: list[QueueInfo]) -> ClusterInfo:
    return ClusterInfo.build(now=T0 + timedelta(hours=1), nodes=nodes, jobs=jobs, queues=queues)


# --- the sets ------------------------------------------------------------------------------------
def s_gang(seed: int) -> Workload:
    """100 nodes, 1 queue, 10 gang jobs x 100 small pods (minAvailable 100)."""

    def build() -> ClusterInfo:
        jobs = [_job(f"gang-{j}", "q0", "small", 100, min_member=100, minute=j) for j in range(10)]
        return _cluster(build_nodes(100), jobs, _queues([1]))

    return Workload("S-gang", seed, [Case("S-gang", CONFS["default+binpack"], build)])


def s_yk(seed: int) -> Workload:
    """500 nodes, 2 queues, 2 jobs x 5,000 pods of 1 CPU / 10Mi, predicates only, no gang."""

    def build() -> ClusterInfo:
        jobs = [_job(f"yk-{j}", f"q{j}", "yk", 5000, min_member=1, minute=j) for j in range(2)]
        return _cluster(build_nodes(500), jobs, _queues([1, 1]))

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
                        _job(
                            f"m-{j}",
                            f"q{j % 4}",
                            "small",
                            pods,
                            min_member=pods if gang_on else 1,
                            minute=j,
                        )
                        for j in range(jobs_n)
                    ]
                    return _cluster(build_nodes(nodes), jobs, _queues([1, 1, 2, 4]))

                label = f"{nodes} nodes, {jobs_n}x{pods}, gang {'on' if gang_on else 'off'}"
                conf = CONFS["default+binpack" if gang_on else "no-gang"]
                work.cases.append(Case(label, conf, build))
    return work


def _mixed_jobs(
    rng: random.Random,
    count: int,
    mix: list[tuple[float, str, int]],
    queues: int,
    *,
    tolerate_fraction: float = 0.0,
) -> list[JobInfo]:
    jobs = []
    tolerant = TaskTemplate(
        namespace="bench",
        labels={"class": "tolerant"},
        tolerations=(Toleration("dedicated", "Equal", "special", "NoSchedule"),),
    )
    plain = {kind: TaskTemplate(namespace="bench", labels={"class": kind}) for _, kind, _ in mix}
    for j in range(count):
        roll, acc = rng.random(), 0.0
        kind, pods = mix[-1][1], mix[-1][2]
        for share, k, p in mix:
            acc += share
            if roll < acc:
                kind, pods = k, p
                break
        template = tolerant if rng.random() < tolerate_fraction else plain[kind]
        jobs.append(
            _job(
                f"{kind}-{j}",
                f"q{j % queues}",
                kind,
                pods,
                min_member=pods,
                minute=j,
                template=template,
            )
        )
    return jobs


def m_mixed(seed: int) -> Workload:
    """2,000 nodes (a quarter with GPUs), 8 queues 1..8, 400 jobs of three classes."""
    mix = [(0.70, "small", 10), (0.25, "medium", 20), (0.05, "gpu", 8)]

    def build() -> ClusterInfo:
        rng = random.Random(seed)
        jobs = _mixed_jobs(rng, 400, mix, 8)
        return _cluster(build_nodes(2000, gpu_every=4), jobs, _queues(list(range(1, 9))))

    return Workload("M-mixed", seed, [Case("M-mixed", CONFS["default+binpack"], build)])


def l_basic(seed: int) -> Workload:
    """5,000 nodes, 8 queues, 500 gang jobs x 100 small pods, 5,000 pods already running."""

    def build() -> ClusterInfo:
        nodes = build_nodes(5000)
        names = [n.name for n in nodes]
        running = [
            _job(
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
            _job(f"l-{j}", f"q{j % 8}", "small", 100, min_member=100, minute=100 + j)
            for j in range(500)
        ]
        return _cluster(nodes, running + pending, _queues([1] * 8))

    return Workload("L-basic", seed, [Case("L-basic", CONFS["default+binpack"], build)])


def l_mixed(seed: int) -> Workload:
    """5,000 nodes (20% tainted, a quarter with GPUs), 16 queues on two levels, 5,000 jobs."""
    mix = [(0.60, "small", 4), (0.30, "medium", 10), (0.10, "gpu", 8)]

    def build() -> ClusterInfo:
        rng = random.Random(seed)
        nodes = build_nodes(5000, gpu_every=4, taint_fraction=0.2, rng=rng)
        jobs = _mixed_jobs(rng, 5000, mix, 16, tolerate_fraction=0.2)
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
        return _cluster(nodes, jobs, queues)

    return Workload("L-mixed", seed, [Case("L-mixed", CONFS["default+binpack"], build)])


def p_preempt(seed: int) -> Workload:
    """1,000 nodes 90% full of low-priority pods; 1,000 high-priority pods of 24 CPU."""

    def build() -> ClusterInfo:
        nodes = build_nodes(1000)
        request = Resource({"cpu": 7200, "memory": 8 * GI, "pods": 1000})
        big = Resource({"cpu": 24000, "memory": 32 * GI, "pods": 1000})
        jobs = []
        for n, node in enumerate(nodes):
            for k in range(4):
                jobs.append(
                    _job_of(
                        f"low-{n}-{k}",
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
                _job_of(
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
            QueueInfo(name="high", weight=1, reclaimable=False, creation_timestamp=T0),
        ]
        return _cluster(nodes, jobs, queues)

    return Workload("P-preempt", seed, [Case("P-preempt", CONFS["preempt"], build)])


SETS: dict[str, Callable[[int], Workload]] = {
    "S-gang": s_gang,
    "S-yk": s_yk,
    "M-shape": m_shape,
    "M-mixed": m_mixed,
    "L-basic": l_basic,
    "L-mixed": l_mixed,
    "P-preempt": p_preempt,
}
