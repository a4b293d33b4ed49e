"""A stored pod's fields as the engine reads them: status, template, limits, gates, timestamps.

Pure functions of the row's values, used by the snapshot's read of every pod (``snapshot.py``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from apis.errors import EngineError
from scheduler.engine.api.resource import Resource
from scheduler.engine.api.task_info import TaskTemplate, Toleration
from scheduler.engine.api.types import TaskStatus
from scheduler.engine.util.manifests import pod_limits

__all__ = [
    "ACTIVE_PHASES",
    "aware",
    "pod_spec_limits",
    "pod_status",
    "pod_template",
    "scheduled_at",
    "scheduling_gated",
]

ACTIVE_PHASES = ("Pending", "Running")


def aware(value: Any) -> datetime | None:
    """Return a timestamp as an aware datetime (SQLite hands back text, PostgreSQL datetimes)."""
    stamp: datetime | None = datetime.fromisoformat(value) if isinstance(value, str) else value
    if stamp is not None and stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=UTC)
    return stamp


def pod_status(phase: str, has_node: bool, deleting: bool) -> TaskStatus:
    if deleting and phase in ACTIVE_PHASES:
        return TaskStatus.RELEASING
    if phase == "Pending":
        return TaskStatus.BOUND if has_node else TaskStatus.PENDING
    return TaskStatus(phase)


def pod_template(spec: Mapping[str, Any], namespace: str, labels: dict[str, str]) -> TaskTemplate:
    containers = spec.get("containers") or []
    ports = sorted(
        int(p["hostPort"])
        for c in containers
        for p in c.get("ports") or ()
        if isinstance(p, Mapping) and p.get("hostPort")
    )
    return TaskTemplate(
        namespace=namespace,
        labels=labels,
        node_selector={str(k): str(v) for k, v in (spec.get("nodeSelector") or {}).items()},
        affinity=dict(spec.get("affinity") or {}),
        tolerations=tuple(
            Toleration(
                str(t.get("key", "")),
                str(t.get("operator", "Equal")),
                str(t.get("value", "")),
                str(t.get("effect", "")),
            )
            for t in spec.get("tolerations") or ()
        ),
        topology_spread_constraints=tuple(spec.get("topologySpreadConstraints") or ()),
        host_ports=tuple(ports),
        images=tuple(str(c.get("image", "")) for c in containers),
        volumes=tuple(spec.get("volumes") or ()),
    )


def pod_spec_limits(spec: Mapping[str, Any] | None) -> Resource | None:
    """Return a stored pod spec's limits (None when unreadable: admission refuses such specs)."""
    try:
        return pod_limits(spec or {}, "spec")
    except EngineError:
        return None


def scheduled_at(conditions_text: str) -> datetime | None:
    """Return when the pod's ``PodScheduled=True`` condition last turned (cdp's cool-down start).

    Only asked of a pod labelled or annotated ``volcano.sh/cooldown-time`` (the snapshot's ``_task``): cdp reads
    it of no other pod, and the other 50,000 are spared a decode.
    """
    conditions = json.loads(conditions_text)
    for cond in conditions if isinstance(conditions, list) else ():
        if (
            isinstance(cond, dict)
            and cond.get("type") == "PodScheduled"
            and str(cond.get("status")) == "True"
        ):
            stamp = cond.get("lastTransitionTime")
            return aware(stamp) if isinstance(stamp, str) and stamp else None
    return None


def scheduling_gated(spec_text: str | None) -> bool:
    """Return True while the pod's ``spec.schedulingGates`` holds a gate.

    Read per pod, not from the shared template: gates are removed pod by pod. The substring test
    keeps the common, ungated pod free of a second decode.
    """
    if not spec_text or '"schedulingGates"' not in spec_text:
        return False
    spec = json.loads(spec_text)
    return isinstance(spec, dict) and bool(spec.get("schedulingGates"))
