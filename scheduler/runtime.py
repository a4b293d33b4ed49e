"""The simulated kubelet (like KWOK): bound pods start, run for the time they ask, and end.

Volcano has no counterpart (the kubelet runs pods); KWOK's stages are the model. One ``tick``
moves every pod one step, level-triggered, with set-wise UPDATEs:

1. A pod bound to a Ready node is acknowledged (``start_time`` = now).
2. ``start_delay`` after that it is Running.
3. After its duration it ends: Succeeded, or Failed when its exit code is not 0.
   Duration: annotation ``volcano.sh/sim-duration`` (``90s``, ``10m``, ``1h30m``, ``500ms`` or
   plain seconds), else the ``sleep N`` in its command (``[sleep, 10m]``, ``sh -c "sleep 30"``),
   else ``default_duration``. Exit code: annotation ``volcano.sh/sim-exit-code`` (default 0).
4. A pod marked for deletion (evicted by the scheduler, killed by the controller or by hand)
   stops ``start_delay`` later: phase Failed, its reason kept (``Evicted``), its deletionTimestamp
   kept, so the job controller can tell an eviction (no ``volcano.sh/controller-out-of-sync``
   annotation) from its own kill and then remove the row, as the API server would.
5. A pod on a NotReady node fails (reason ``NodeNotReady``), as the node lifecycle controller
   evicts pods off a lost node (there without the five-minute grace period).

``speed`` is the demo clock factor: with ``speed=10`` a ten-minute sleep ends after one minute.
Settings: ``VOLCANO_SIM_SPEED``, ``VOLCANO_SIM_START_DELAY`` and ``VOLCANO_SIM_DEFAULT_DURATION``
(seconds) from Django settings or the environment.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, QuerySet

from jobs.models import Pod
from scheduler import failpoints
from scheduler.engine.util.durations import parse_duration as go_duration_seconds
from volcano_site.kube.changes import record_rows

__all__ = [
    "DURATION_ANNOTATION",
    "EXIT_CODE_ANNOTATION",
    "RuntimeSettings",
    "TickResult",
    "parse_duration",
    "pod_duration",
    "tick",
]

DURATION_ANNOTATION = "volcano.sh/sim-duration"
EXIT_CODE_ANNOTATION = "volcano.sh/sim-exit-code"
ACTIVE = ("Pending", "Running")
_SLEEP = re.compile(r"\bsleep\s+(\d+(?:\.\d+)?(?:ms|[smhd])?)\b")


def _setting(name: str, default: float) -> float:
    value = getattr(settings, name, None) or os.environ.get(name)
    return default if value is None or value == "" else float(value)


@dataclass(slots=True, frozen=True)
class RuntimeSettings:
    """How the simulated nodes behave: start delay, default duration (seconds), clock speed."""

    start_delay: float = 1.0
    default_duration: float = 30.0
    speed: float = 1.0

    @classmethod
    def from_settings(cls) -> RuntimeSettings:
        """Return the settings Django settings or the environment give (else the defaults)."""
        return cls(
            start_delay=_setting("VOLCANO_SIM_START_DELAY", 1.0),
            default_duration=_setting("VOLCANO_SIM_DEFAULT_DURATION", 30.0),
            speed=max(_setting("VOLCANO_SIM_SPEED", 1.0), 1e-6),
        )

    def real(self, simulated_seconds: float) -> timedelta:
        """Return how much wall time ``simulated_seconds`` take at this clock speed."""
        return timedelta(seconds=simulated_seconds / self.speed)


@dataclass(slots=True)
class TickResult:
    """How many pods moved in one tick, by transition."""

    acknowledged: int = 0
    started: int = 0
    succeeded: int = 0
    failed: int = 0
    stopped: int = 0
    lost: int = 0


def parse_duration(text: str) -> float | None:
    """Return seconds for ``90s``, ``10m``, ``1h30m``, ``500ms`` or ``42`` (None if unreadable)."""
    text = text.strip()
    try:
        return float(text)  # a bare number of seconds, as `sleep 42` takes it
    except ValueError:
        pass
    if text.endswith("d") and text[:-1].replace(".", "", 1).isdigit():
        return float(text[:-1]) * 86400.0  # `sleep 1d`: GNU sleep's days, not Go's
    try:
        return go_duration_seconds(text)
    except ValueError:
        return None


def pod_duration(annotations: dict[str, Any], spec: dict[str, Any], default: float) -> float:
    """Return how long a pod runs: its annotation, else its command's ``sleep``, else default."""
    asked = annotations.get(DURATION_ANNOTATION)
    if asked is not None:
        seconds = parse_duration(str(asked))
        if seconds is not None:
            return seconds
    for container in spec.get("containers") or ():
        words = [str(w) for w in (container.get("command") or [])]
        words += [str(w) for w in (container.get("args") or [])]
        match = _SLEEP.search(" ".join(words))
        if match:
            seconds = parse_duration(match.group(1))
            if seconds is not None:
                return seconds
    return default


def _exit_code(annotations: dict[str, Any]) -> int:
    try:
        return int(str(annotations.get(EXIT_CODE_ANNOTATION, "0")))
    except ValueError:
        return 1


def _update(queryset: QuerySet[Pod], **values: Any) -> int:
    """Update the pods of ``queryset`` and record each write, so watchers see it."""
    pks = list(queryset.values_list("pk", flat=True))
    if not pks:
        return 0
    written = Pod.objects.filter(pk__in=pks).update(**values)
    record_rows(Pod, pks)
    return written


def tick(*, now: datetime | None = None, config: RuntimeSettings | None = None) -> TickResult:
    """Move every pod on the simulated nodes one step; return the counts."""
    now = now or failpoints.now()
    config = config or RuntimeSettings.from_settings()
    result = TickResult()
    bump = {"resource_version": F("resource_version") + 1}
    with transaction.atomic():
        # 5. Pods on a lost node fail first (they never start or finish there).
        result.lost = _update(
            Pod.objects.filter(node__ready=False, phase__in=ACTIVE),
            phase="Failed", reason="NodeNotReady", message="node is not ready",
            finish_time=now, task_status="", **bump,
        )  # fmt: skip
        # 4. Deleted pods stop after the grace period.
        result.stopped = _update(
            Pod.objects.filter(
                deletion_time__lte=now - config.real(config.start_delay), phase__in=ACTIVE
            ),
            phase="Failed", finish_time=now, task_status="", **bump,
        )  # fmt: skip
        live = Pod.objects.filter(deletion_time__isnull=True, node__ready=True)
        # 3. Finish the pods whose time is up; before 2., so each pod is Running for a tick.
        ends: dict[int, list[int]] = {}
        running = live.filter(phase="Running", start_time__isnull=False)
        for pk, started, annotations, spec in running.values_list(
            "pk", "start_time", "annotations", "spec"
        ):
            runs = config.start_delay + pod_duration(annotations, spec, config.default_duration)
            if started is not None and started + config.real(runs) <= now:
                ends.setdefault(_exit_code(annotations), []).append(pk)
        for code, pks in ends.items():
            done = _update(
                Pod.objects.filter(pk__in=pks, phase="Running"),
                phase="Succeeded" if code == 0 else "Failed",
                reason="Completed" if code == 0 else "Error",
                exit_code=code, finish_time=now, **bump,
            )  # fmt: skip
            if code == 0:
                result.succeeded += done
            else:
                result.failed += done
        # 2. Start pods acknowledged long enough ago; 1. acknowledge new binds.
        result.started = _update(
            live.filter(
                phase="Pending",
                node__isnull=False,
                start_time__lte=now - config.real(config.start_delay),
            ),
            phase="Running", task_status="", **bump,
        )  # fmt: skip
        result.acknowledged = _update(
            live.filter(phase="Pending", node__isnull=False, start_time__isnull=True),
            start_time=now, **bump,
        )  # fmt: skip
    return result
