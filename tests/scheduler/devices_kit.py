"""What the device and NUMA tests share: the policies that turn the plugins on, and pods asking
vGPUs or whole CPUs as a Guaranteed pod."""

from __future__ import annotations

from typing import Any

from core.models import Pod
from tests.scheduler.factories import GI, make_gang

__all__ = ["NUMA_CONF", "VGPU_CONF", "guaranteed", "vgpu_gang", "vgpu_spec"]

VGPU_CONF = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: predicates
  - name: deviceshare
    arguments:
      deviceshare.VGPUEnable: true
      deviceshare.SchedulePolicy: binpack
  - name: binpack
"""

NUMA_CONF = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: predicates
  - name: numa-aware
  - name: binpack
"""


def vgpu_spec(memory: int) -> dict[str, Any]:
    """Return a one-container pod spec asking one vGPU with ``memory`` MiB."""
    asked = {"volcano.sh/vgpu-number": "1", "volcano.sh/vgpu-memory": str(memory)}
    return {"containers": [{"name": "main", "image": "cuda", "resources": {
        "requests": {"cpu": "1", "memory": "1Gi", **asked}, "limits": asked}}]}  # fmt: skip


def vgpu_gang(name: str, memory: int) -> Pod:
    _, (pod,) = make_gang(name, replicas=1, spec=vgpu_spec(memory))
    Pod.objects.filter(pk=pod.pk).update(requests={
        "cpu": 1000, "memory": GI, "volcano.sh/vgpu-number": 1000,
        "volcano.sh/vgpu-memory": memory * 1000})  # fmt: skip
    return pod


def guaranteed(cpus: int) -> dict[str, Any]:
    asked = {"cpu": str(cpus), "memory": "1Gi"}
    return {"containers": [{"name": "main", "image": "busybox",
                            "resources": {"requests": asked, "limits": asked}}]}  # fmt: skip
