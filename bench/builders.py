"""Building blocks of the benchmark sets: shapes, confs, nodes, jobs and the snapshot.

The sets themselves are in ``workloads.py``. Pods of one task share one ``TaskTemplate`` object,
as pods made from one job task spec do, so node selection caches one mask and score vector per
task template. Node shape: cpu 32, memory 256Gi, pods 110 (a quarter with ``nvidia.com/gpu: 8``
in the mixed sets). Pod shapes: small 1 CPU / 1Gi, medium 4 CPU / 16Gi, gpu 8 CPU / 64Gi / 1 GPU.
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
from scheduler.engine.framework.decisions import Decisions

__all__ = [
    "CONFS",
    "GI",
    "T0",
    "Case",
    "Workload",
    "build_nodes",
    "cluster",
    "job",
    "job_of",
    "mixed_jobs",
    "queues",
    "shape",
]

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
    """One session to time: a label, a conf text and a snapshot builder.

    ``after``, when set, builds the next session's snapshot from this session's decisions (the
    evicted pods gone, as the kubelet would have it by then): preemption and reclaim only
    *pipeline* their preemptors, which are bound one session later, so that second session is
    what shows them placed. ``check``, when set, asserts what the decisions must show (e.g. that
    a guard kept its pods) and returns a line saying so.
    """

    label: str
    conf: str
    build: Callable[[], ClusterInfo]
    after: Callable[[Decisions], ClusterInfo] | None = None
    # Returns a line saying what the decisions prove; raises ``AssertionError`` when they do not.
    check: Callable[[Decisions], str] | None = None


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


def job(
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
    return job_of(
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


def job_of(
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
    namespace: str = "bench",
) -> JobInfo:
    shared = template or TaskTemplate(namespace=namespace, labels={"app": name})
    job = JobInfo(
        name=name,
        namespace=namespace,
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
                namespace=namespace,
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


def queues(weights: list[int], **extra: object) -> list[QueueInfo]:
    return [
        QueueInfo(name=f"q{i}", weight=w, creation_timestamp=T0, **extra)  # type: ignore[arg-type]
        for i, w in enumerate(weights)
    ]


def cluster(nodes: list[NodeInfo], jobs: list[JobInfo], queues: list[QueueInfo]) -> ClusterInfo:
    return ClusterInfo.build(now=T0 + timedelta(hours=1), nodes=nodes, jobs=jobs, queues=queues)


def mixed_jobs(
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
            job(
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
