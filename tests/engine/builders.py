"""Builders for engine snapshots in tests (Volcano's ``util.BuildNode`` / ``BuildPod`` / ...).

Quantities are written as Kubernetes writes them (``cpu="2"``, ``memory="4Gi"``); every pod asks
for ``pods: 1`` as in Volcano, and nodes hold 110 pods unless told otherwise.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from scheduler.engine.api.cluster_info import ClusterInfo
from scheduler.engine.api.job_info import JobInfo
from scheduler.engine.api.node_info import NodeInfo, Taint
from scheduler.engine.api.queue_info import QueueInfo
from scheduler.engine.api.resource import Resource
from scheduler.engine.api.task_info import TaskInfo, TaskTemplate
from scheduler.engine.api.types import PodGroupPhase, QueueState, TaskStatus
from scheduler.engine.conf import SchedulerConf, load_conf

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def res(extra: dict[str, str] | None = None, /, **amounts: str | int) -> Resource:
    """Return a Resource from quantities: ``res({"nvidia.com/gpu": "1"}, cpu="500m")``."""
    return Resource.parse({**(extra or {}), **amounts}, field="test")


def build_node(
    name: str,
    *,
    cpu: str = "4",
    memory: str = "8Gi",
    pods: int = 110,
    labels: dict[str, str] | None = None,
    taints: tuple[Taint, ...] = (),
    **extra: str,
) -> NodeInfo:
    """Return a Ready node with the given allocatable."""
    return NodeInfo(
        name=name,
        allocatable=res(extra, cpu=cpu, memory=memory, pods=pods),
        labels=labels or {},
        taints=taints,
    )


def build_pod(
    name: str,
    *,
    namespace: str = "ns",
    cpu: str = "1",
    memory: str = "1Gi",
    status: TaskStatus = TaskStatus.PENDING,
    node: str = "",
    priority: int = 1,
    role: str = "",
    minutes: int = 0,
    best_effort: bool = False,
    namespace_labels: dict[str, str] | None = None,
) -> TaskInfo:
    """Return a pod (task) requesting ``cpu``/``memory`` plus ``pods: 1``."""
    request = res(pods=1) if best_effort else res(cpu=cpu, memory=memory, pods=1)
    return TaskInfo(
        name=name,
        namespace=namespace,
        job="",
        resreq=request,
        status=status,
        node_name=node,
        priority=priority,
        role=role,
        creation_timestamp=T0 + timedelta(minutes=minutes),
        template=TaskTemplate(namespace=namespace, labels=namespace_labels or {}),
    )


def build_pod_group(
    name: str,
    pods: list[TaskInfo],
    *,
    namespace: str = "ns",
    queue: str = "default",
    min_member: int = 1,
    phase: PodGroupPhase = PodGroupPhase.INQUEUE,
    priority: int = 0,
    minutes: int = 0,
    min_resources: Resource | None = None,
    task_min: dict[str, int] | None = None,
) -> JobInfo:
    """Return a job (PodGroup) holding ``pods``."""
    job = JobInfo(
        name=name,
        namespace=namespace,
        queue=queue,
        min_available=min_member,
        phase=phase,
        priority=priority,
        creation_timestamp=T0 + timedelta(minutes=minutes),
        min_resources=min_resources,
        task_min_available=task_min or {},
    )
    for pod in pods:
        job.add_task(pod)
    return job


def build_queue(
    name: str,
    *,
    weight: int = 1,
    state: QueueState = QueueState.OPEN,
    capability: Resource | None = None,
    reclaimable: bool = True,
) -> QueueInfo:
    """Return a queue."""
    return QueueInfo(
        name=name,
        weight=weight,
        state=state,
        capability=capability,
        reclaimable=reclaimable,
        creation_timestamp=T0,
    )


def gang(
    name: str,
    size: int,
    *,
    min_member: int | None = None,
    cpu: str = "1",
    memory: str = "1Gi",
    minutes: int = 0,
    **kwargs: Any,
) -> JobInfo:
    """Return a job of ``size`` identical pending pods named ``<name>-<i>``."""
    pods = [
        build_pod(f"{name}-task-{i}", cpu=cpu, memory=memory, minutes=minutes) for i in range(size)
    ]
    return build_pod_group(
        name, pods, min_member=size if min_member is None else min_member, minutes=minutes, **kwargs
    )


def build_cluster(
    nodes: list[NodeInfo],
    jobs: list[JobInfo],
    queues: list[QueueInfo] | None = None,
    *,
    now: datetime = T0,
) -> ClusterInfo:
    """Return a snapshot of the given objects."""
    return ClusterInfo.build(now=now, nodes=nodes, jobs=jobs, queues=queues or [])


def conf(
    actions: str = "enqueue, allocate, backfill",
    plugins: tuple[str, ...] = ("priority", "gang", "conformance"),
) -> SchedulerConf:
    """Return a one-tier conf of ``plugins`` running ``actions``."""
    lines = [f'actions: "{actions}"', "tiers:", "- plugins:"]
    lines += [f"  - name: {p}" for p in plugins]
    return load_conf("\n".join(lines) + "\n")
