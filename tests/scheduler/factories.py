"""Rows for the scheduler's tests: nodes, PodGroups and pods made directly (no controller)."""

from __future__ import annotations

from typing import Any

from core.models import Node, Pod
from queues.models import PodGroup, Queue
from scheduler.models import SchedulerConfiguration

GI = 1024**3 * 1000  # one Gi in milli-units

TEST_CONF = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: binpack
"""


def use_conf(text: str = TEST_CONF) -> SchedulerConfiguration:
    """Make ``text`` the active scheduler configuration (the engine's available plugins)."""
    SchedulerConfiguration.objects.update(is_active=False)
    top = SchedulerConfiguration.objects.order_by("-version").first()
    return SchedulerConfiguration.objects.create(
        version=(top.version + 1) if top else 1, text=text, is_active=True
    )


def make_node(name: str, *, cpu: int = 4, memory_gi: int = 16, gpu: int = 0, pods: int = 110,
              **fields: Any) -> Node:  # fmt: skip
    """Return a Ready node with ``cpu`` cores, ``memory_gi`` GiB, ``gpu`` GPUs, ``pods`` slots."""
    alloc = {"cpu": cpu * 1000, "memory": memory_gi * GI, "pods": pods * 1000}
    if gpu:
        alloc["nvidia.com/gpu"] = gpu * 1000
    return Node.objects.create(name=name, capacity=alloc, allocatable=alloc, **fields)


def make_queue(name: str, *, weight: int = 1, **fields: Any) -> Queue:
    """Return an open queue (or the existing one, updated)."""
    queue, _ = Queue.objects.update_or_create(name=name, defaults={"weight": weight, **fields})
    return queue


def make_gang(name: str, *, replicas: int, min_member: int | None = None, cpu: int = 1,
              memory_gi: int = 1, gpu: int = 0, queue: str = "default", namespace: str = "default",
              phase: str = "Pending", annotations: dict[str, str] | None = None,
              spec: dict[str, Any] | None = None) -> tuple[PodGroup, list[Pod]]:  # fmt: skip
    """Return a PodGroup of ``min_member`` (default all) and its ``replicas`` pending pods."""
    group = PodGroup.objects.create(
        namespace=namespace, name=name, queue=queue, phase=phase,
        min_member=replicas if min_member is None else min_member,
    )  # fmt: skip
    requests = {"cpu": cpu * 1000, "memory": memory_gi * GI}
    if gpu:
        requests["nvidia.com/gpu"] = gpu * 1000
    pods = [
        Pod.objects.create(
            namespace=namespace, name=f"{name}-task-{i}", pod_group=group, task_name="task",
            task_index=i, requests=requests, cpu_milli=requests["cpu"],
            memory_milli=requests["memory"], gpu_milli=requests.get("nvidia.com/gpu", 0),
            annotations=dict(annotations or {}),
            spec=spec or {"containers": [{"name": "main", "image": "busybox"}]},
        )
        for i in range(replicas)
    ]  # fmt: skip
    return group, pods
