"""A pod row's device and NUMA asks, for deviceshare and numa-aware (``pod_tasks.pod_task``).

The engine's scenario reader fills ``TaskInfo.device_containers`` and ``TaskInfo.numa`` from a
pod manifest (``engine.util.manifests``); the live cache reads the same two from the stored spec
and annotations here. Replicas of one task share their spec, so each distinct spec (and, for
NUMA, policy annotation) is read once per session. A spec the engine cannot read gives no ask,
as admission refused such specs already.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from apis.errors import ManifestError
from scheduler.engine.api.devices.requests import DeviceContainers, read_device_containers
from scheduler.engine.api.numa import NUMA_POLICY_ANNOTATION, NumaTask, read_numa_task

__all__ = ["DeviceAsks"]


class DeviceAsks:
    """Per-session cache of the device and NUMA asks of pod specs."""

    def __init__(self, decode: Callable[[str | None], Any]) -> None:
        self._decode = decode
        self._devices: dict[str | None, DeviceContainers | None] = {}
        self._numa: dict[tuple[str | None, str], NumaTask | None] = {}

    def __call__(
        self, spec_text: str | None, annotations: Mapping[str, str]
    ) -> tuple[DeviceContainers | None, NumaTask | None]:
        """Return ``(device_containers, numa)`` of a pod's stored spec and annotations."""
        if spec_text not in self._devices:
            self._devices[spec_text] = self._read(spec_text, read_device_containers)
        policy = str(annotations.get(NUMA_POLICY_ANNOTATION, ""))
        key = (spec_text, policy)
        if key not in self._numa:
            self._numa[key] = self._read(
                spec_text, lambda spec, field: read_numa_task(spec, annotations, field)
            )
        return self._devices[spec_text], self._numa[key]

    def _read(self, spec_text: str | None, reader: Callable[[Mapping[str, Any], str], Any]) -> Any:
        if not spec_text or ("resources" not in spec_text):
            return None  # no container states resources: no device, not Guaranteed
        try:
            return reader(self._decode(spec_text) or {}, "spec")
        except (ManifestError, ValueError, TypeError):
            return None
