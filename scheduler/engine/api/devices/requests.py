"""What a pod asks of shared devices, container by container.

Volcano reads the device resources from each container's limits (and, for vGPU memory and cores,
its requests as a fallback), never from the pod's summed request: a vGPU pod with two containers
asks cards for each container separately. ``TaskInfo.device_containers`` keeps those per-container
integers for the pods that name a device resource at all; every other pod carries ``None``, so
reading ordinary pods costs one scan of their resource names.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scheduler.engine.api.resource import Resource

__all__ = [
    "DEVICE_RESOURCE_PREFIXES",
    "ContainerDevices",
    "DeviceContainers",
    "read_device_containers",
]

# Resource names of the devices deviceshare schedules (gpushare and vGPU).
DEVICE_RESOURCE_PREFIXES = ("volcano.sh/gpu-", "volcano.sh/vgpu-")


@dataclass(slots=True, frozen=True)
class ContainerDevices:
    """One container's device limits and requests, as whole numbers (Kubernetes' ``Value()``)."""

    limits: Mapping[str, int]
    requests: Mapping[str, int]

    def limit_or_request(self, name: str) -> int | None:
        """Return the limit, else the request, of ``name`` (None: the container names neither)."""
        if name in self.limits:
            return self.limits[name]
        return self.requests.get(name)


@dataclass(slots=True, frozen=True)
class DeviceContainers:
    """The device resources of a pod's containers and init containers, in spec order."""

    containers: tuple[ContainerDevices, ...] = ()
    init_containers: tuple[ContainerDevices, ...] = ()

    def key(self) -> tuple[object, ...]:
        """Return a hashable text of the request (part of the node-answer cache key)."""
        return (
            tuple((tuple(sorted(c.limits.items())), tuple(sorted(c.requests.items())))
                  for c in self.containers),
            tuple((tuple(sorted(c.limits.items())), tuple(sorted(c.requests.items())))
                  for c in self.init_containers),
        )  # fmt: skip


def _device_names(values: object) -> dict[str, object]:
    if not isinstance(values, Mapping):
        return {}
    return {str(k): v for k, v in values.items() if str(k).startswith(DEVICE_RESOURCE_PREFIXES)}


def _whole(values: dict[str, object], field: str) -> dict[str, int]:
    """Return each quantity rounded up to a whole number, as ``Quantity.Value()`` does."""
    parsed = Resource.parse(values, field=field)
    return {name: math.ceil(milli / 1000) for name, milli in parsed.items()}


def _container(raw: object, field: str) -> ContainerDevices:
    resources = raw.get("resources") if isinstance(raw, Mapping) else None
    resources = resources if isinstance(resources, Mapping) else {}
    return ContainerDevices(
        limits=_whole(_device_names(resources.get("limits")), f"{field}.resources.limits"),
        requests=_whole(_device_names(resources.get("requests")), f"{field}.resources.requests"),
    )


def _names_a_device(containers: list[Any]) -> bool:
    """Return True when a container's limits or requests name a device resource.

    Hot (every pod read): manifests are plain dicts, and ``dict`` checks cost a tenth of
    ``Mapping`` ones; anything else is left to the ordinary readers to refuse.
    """
    for raw in containers:
        resources = raw.get("resources") if type(raw) is dict else None
        if type(resources) is not dict:
            continue
        for part in (resources.get("limits"), resources.get("requests")):
            if type(part) is dict:
                for name in part:
                    if type(name) is str and name.startswith(DEVICE_RESOURCE_PREFIXES):
                        return True
    return False


def read_device_containers(spec: Mapping[str, Any], field: str) -> DeviceContainers | None:
    """Return the device resources of a pod spec, or None when no container names one."""
    containers = spec.get("containers") or []
    init_containers = spec.get("initContainers") or []
    if not isinstance(containers, list) or not isinstance(init_containers, list):
        return None
    if not _names_a_device(containers) and not _names_a_device(init_containers):
        return None
    return DeviceContainers(
        containers=tuple(
            _container(c, f"{field}.containers[{i}]") for i, c in enumerate(containers)
        ),
        init_containers=tuple(
            _container(c, f"{field}.initContainers[{i}]") for i, c in enumerate(init_containers)
        ),
    )
