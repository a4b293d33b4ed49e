"""The simulated kubelet (like KWOK): bound pods start, run for the time they ask, and end.

Volcano has no counterpart (the kubelet runs pods); KWOK's stages are the model. One ``tick``
moves every pod one step, level-triggered, with set-wise UPDATEs:

1. A pod bound to a Ready node is acknowledged (``start_time`` = now).
2. ``start_delay`` after that it is Running, with an address from its node's pod range
   (``status.podIP``, ``core.network``).
3. After its duration it ends: Succeeded, or Failed when its exit code is not 0.
   Duration: annotation ``volcano.sh/sim-duration`` (``90s``, ``10m``, ``1h30m``, ``500ms`` or
   plain seconds), else the ``sleep N`` in its command (``[sleep, 10m]``, ``sh -c "sleep 30"``),
   else ``default_duration``, counted from the container's start. Exit code: annotation
   ``volcano.sh/sim-exit-code`` (default 0). Under restartPolicy ``OnFailure``/``Always``
   a failing container restarts in place instead, after CrashLoopBackOff's delay
   (``core.container_lifecycle``), and runs its duration again.
4. A pod marked for deletion (evicted by the scheduler, deleted through the API or by hand)
   stays Running until its container exits: ``start_delay`` later, or at the end of its grace
   period when it carries ``volcano.sh/sim-ignore-sigterm: "true"``. It ends Failed, its
   reason kept (``Evicted``), its deletionTimestamp kept, so the job controller sees the
   eviction and then removes the row, as the API server would.
1b. A new bind whose device assignment (``volcano.sh/vgpu-ids-new``, ``volcano.sh/gpu-index``)
   names a card its node lacks fails (reason ``UnexpectedAdmissionError``) instead of being
   acknowledged, as the device plugin refuses it (``kubelet.device_admission``).
5. A pod on a NotReady node fails (reason ``NodeNotReady``), as the node lifecycle controller
   evicts pods off a lost node (there without the five-minute grace period).

While Running, a pod uses its requests, or the share of them its annotation
``volcano.sh/sim-usage`` names (``150%``, ``cpu=250%,memory=40%``; ``kubelet/sim_usage.py``):
what ``metrics.k8s.io`` reports and the usage plugin filters and scores by.

``speed`` is the demo clock factor: with ``speed=10`` a ten-minute sleep ends after one minute.
Settings: ``VOLCANO_SIM_SPEED``, ``VOLCANO_SIM_START_DELAY`` and ``VOLCANO_SIM_DEFAULT_DURATION``
(seconds) from Django settings or the environment.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import chain
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, QuerySet, TextField, Value
from django.db.models.fields.json import KT
from django.db.models.functions import Concat

from apis.durations import parse_duration as go_duration_seconds
from apis.wire import format_time
from core import container_lifecycle
from core.container_lifecycle import (
    back_off_seconds,
    grace_seconds,
    ignores_sigterm,
    restarts_on,
)
from core.models import Event, EventType, Node, Pod
from core.network import allocate_pod_ips
from core.row_events import KUBELET, RowEvents, record_query_events
from kube import clock, failpoints
from kube.changes import record_rows
from kubelet.device_admission import REASON as REFUSED_REASON
from kubelet.device_admission import refused

__all__ = [
    "DURATION_ANNOTATION",
    "EXIT_CODE_ANNOTATION",
    "IGNORE_SIGTERM_ANNOTATION",
    "RuntimeSettings",
    "TickResult",
    "parse_duration",
    "pod_duration",
    "tick",
]

DURATION_ANNOTATION = "volcano.sh/sim-duration"
EXIT_CODE_ANNOTATION = "volcano.sh/sim-exit-code"
IGNORE_SIGTERM_ANNOTATION = container_lifecycle.IGNORE_SIGTERM_ANNOTATION
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
            speed=clock.speed(),
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
    restarted: int = 0  # containers that crashed and wait in CrashLoopBackOff
    refused: int = 0  # new binds whose devices the node lacks (``device_admission``)


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
    pks = list(queryset.order_by().values_list("pk", flat=True))
    if not pks:
        return 0
    written = Pod.objects.filter(pk__in=pks).update(**values)
    record_rows(Pod, pks)
    return written


def _stop_deleted(now: datetime, config: RuntimeSettings, bump: dict[str, Any]) -> int:
    """Stop the deleted pods whose containers exited: at once, or when their grace ran out.

    A container gets SIGTERM when its pod is deleted and exits ``start_delay`` later (at
    most its grace period); one that ignores SIGTERM (``container_lifecycle``) is killed
    when the grace period ends (exit code 137, SIGKILL's). A pod that never ran stops at once.
    """
    by_code: dict[int, list[int]] = {}
    finished: list[int] = []  # deleted through the API, then ended by themselves: rows to go
    deleted = Pod.objects.filter(deletion_time__isnull=False).order_by()  # pod_deletion_time
    for pk, phase, job, deleted_at, notes, spec, asked, running in deleted.values_list(
        "pk", "phase", "job_id", "deletion_time", "annotations", "spec",
        "deletion_grace_seconds", "running_since",
    ):  # fmt: skip
        if phase not in ACTIVE:
            if not job and asked is not None:
                finished.append(pk)
            continue
        grace = grace_seconds(spec, asked)
        if running is None or deleted_at is None:
            by_code.setdefault(-1, []).append(pk)  # never ran or between restarts: no process
        elif ignores_sigterm(notes):
            if deleted_at + config.real(grace) <= now:
                by_code.setdefault(137, []).append(pk)
        elif deleted_at + config.real(min(config.start_delay, grace)) <= now:
            by_code.setdefault(143, []).append(pk)
    stopped = 0
    for code, pks in by_code.items():
        stopped += _update(
            Pod.objects.filter(pk__in=pks, phase__in=ACTIVE),
            phase="Failed", finish_time=now, task_status="", back_off_until=None,
            exit_code=None if code < 0 else code, **bump,
        )  # fmt: skip
    if stopped or finished:
        # The kubelet's final delete of a pod deleted through the API: the row goes (watchers
        # hear DELETED), also when its containers ended by themselves during the grace period
        # (it would otherwise stay, terminating, for ever). A job's pod is left to its
        # controller, which removes it once it saw the eviction; a pod the scheduler evicted
        # keeps its Failed row, as before.
        done = [pk for pks in by_code.values() for pk in pks]
        Pod.objects.filter(
            pk__in=done, job__isnull=True, deletion_grace_seconds__isnull=False, phase="Failed"
        ).delete()
        Pod.objects.filter(
            pk__in=finished, job__isnull=True, deletion_grace_seconds__isnull=False
        ).exclude(phase__in=ACTIVE).delete()
    return stopped


def _crash(pks: list[int], code: int, began: datetime, now: datetime,
           config: RuntimeSettings, previous: float, bump: dict[str, Any]) -> int:  # fmt: skip
    """Restart crashed containers in place: restartCount + 1, CrashLoopBackOff until due.

    ``pks`` share their exit code, start and last back-off, so one UPDATE serves them all
    (pods started by one tick crash together: 10,000 at once take one statement).
    """
    ran = (now - began).total_seconds() * config.speed
    delay = back_off_seconds(previous, ran)
    last = {"terminated": {"exitCode": code, "reason": "Error", "startedAt": format_time(began),
                           "finishedAt": format_time(now)}}  # fmt: skip
    until = now + config.real(delay)
    restarted = _update(
        Pod.objects.filter(pk__in=pks, phase="Running", deletion_time__isnull=True),
        restart_count=F("restart_count") + 1, running_since=None, run_until=None,
        back_off_until=until, back_off_seconds=delay, last_state=last, **bump,
    )  # fmt: skip
    # The kubelet's Warning, as `kubectl describe pod` shows it under a crash loop: one event
    # per pod, counted up at each crash ("x5 over 3m"), as client-go's recorder aggregates.
    crashed = Pod.objects.filter(pk__in=pks, back_off_until=until)
    seen = Event.objects.filter(
        involved_kind="Pod", reason="BackOff", source=KUBELET,
        involved_uid__in=crashed.values("uid"),
    )  # fmt: skip
    seen.update(count=F("count") + 1, last_timestamp=now)
    record_query_events(
        crashed.exclude(uid__in=seen.values("involved_uid")),
        RowEvents("Pod", "BackOff", now, EventType.WARNING, source=KUBELET),
        Concat(Value("Back-off restarting failed container "), KT("spec__containers__0__name"),
               Value(" in pod "), F("name"), Value("_"), F("namespace"), output_field=TextField()),
    )  # fmt: skip
    return restarted


def _start(queryset: QuerySet[Pod], now: datetime, config: RuntimeSettings,
           values: dict[str, Any], *, address: bool = False) -> int:  # fmt: skip
    """Start the containers of ``queryset`` now: ``running_since`` and ``run_until`` set.

    Pods are grouped by how long they run, so one UPDATE serves each duration. With
    ``address``, a pod without an address gets one from its node's range (the CNI plugin's
    part of starting a pod sandbox, ``core.network``), in the same UPDATE.
    """
    by_duration: dict[float, list[int]] = {}
    unaddressed: list[tuple[int, int | None]] = []
    for pk, notes, spec, ip, node in queryset.order_by().values_list(
        "pk", "annotations", "spec", "pod_ip", "node_id"
    ):
        seconds = pod_duration(notes, spec, config.default_duration)
        by_duration.setdefault(seconds, []).append(pk)
        if address and not ip:
            unaddressed.append((pk, node))
    ips = allocate_pod_ips(unaddressed) if unaddressed else {}
    started = 0
    for seconds, group in by_duration.items():
        started += _update(
            Pod.objects.filter(pk__in=group),
            running_since=now, run_until=now + config.real(seconds), **values,
        )  # fmt: skip
    if ips:
        # Addresses differ per pod: one prepared statement run per pod, in the same
        # transaction, costs far less than an ORM CASE of thousands of WHENs (7x the tick).
        with connection.cursor() as cursor:
            cursor.executemany(
                f"UPDATE {Pod._meta.db_table} SET pod_ip = %s WHERE id = %s",
                [(ip, pk) for pk, ip in ips.items()],
            )
    return started


def tick(*, now: datetime | None = None, config: RuntimeSettings | None = None) -> TickResult:
    """Move every pod on the simulated nodes one step; return the counts."""
    now = now or failpoints.now()
    config = config or RuntimeSettings.from_settings()
    result = TickResult()
    bump = {"resource_version": F("resource_version") + 1}
    with transaction.atomic():
        # 5. Pods on a lost node fail first (they never start or finish there). The lost nodes
        #    are read first: with every node Ready (the steady case) no pod is read at all.
        lost_nodes = list(Node.objects.filter(ready=False).order_by().values_list("pk", flat=True))
        if lost_nodes:
            result.lost = _update(
                Pod.objects.filter(node_id__in=lost_nodes, phase__in=ACTIVE),
                phase="Failed", reason="NodeNotReady", message="node is not ready",
                finish_time=now, task_status="", back_off_until=None, **bump,
            )  # fmt: skip
        # 4. Deleted pods stop when their containers exit (grace periods).
        result.stopped = _stop_deleted(now, config, bump)
        live = Pod.objects.filter(deletion_time__isnull=True, node__ready=True)
        # 3. Finish the pods whose time is up; before 2., so each pod is Running for a tick.
        #    A failing container restarts in place under OnFailure/Always.
        ends: dict[int, list[int]] = {}
        crashes: dict[tuple[int, datetime, float], list[int]] = {}
        #    Only pods whose run is due are read (``run_until``, set when the container
        #    started): a tick over thousands of running pods decodes none of their JSON.
        #    A row without it (written by hand or before the column) is timed as before.
        #    Each half is a range of the ``pod_run_until`` index (Running pods by run end), read
        #    apart (SQLite walks every Running pod for the two as one OR): a tick with nothing
        #    due reads no row.
        running = live.filter(
            phase="Running", start_time__isnull=False, back_off_until__isnull=True
        ).order_by()
        fields = ("pk", "start_time", "running_since", "run_until", "annotations", "spec",
                  "back_off_seconds")  # fmt: skip
        for pk, started, since, until, annotations, spec, previous in chain(
            running.filter(run_until__lte=now).values_list(*fields),
            running.filter(run_until__isnull=True).values_list(*fields),
        ):
            if started is None:
                continue
            began = since or started + config.real(config.start_delay)
            if (
                until is None
                and began + config.real(pod_duration(annotations, spec, config.default_duration))
                > now
            ):
                continue
            code = _exit_code(annotations)
            if restarts_on(spec, code):
                crashes.setdefault((code, began, previous), []).append(pk)
            else:
                ends.setdefault(code, []).append(pk)
        for (code, began, previous), pks in crashes.items():
            result.restarted += _crash(pks, code, began, now, config, previous, bump)
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
        # 3b. A crashed container whose back-off is over runs again.
        result.started += _start(
            live.filter(phase="Running", back_off_until__lte=now), now, config,
            {"back_off_until": None, **bump},
        )  # fmt: skip
        # 2. Start pods acknowledged long enough ago; 1. acknowledge new binds.
        result.started += _start(
            live.filter(
                phase="Pending",
                node__isnull=False,
                start_time__lte=now - config.real(config.start_delay),
            ),
            now, config, {"phase": "Running", "task_status": "", **bump}, address=True,
        )  # fmt: skip
        #    A new bind whose device assignment names a card the node lacks fails instead
        #    (``device_admission``), as the device plugin's Allocate refuses it.
        new_binds = live.filter(phase="Pending", node__isnull=False, start_time__isnull=True)
        for pk, message in refused(new_binds).items():
            result.refused += _update(
                Pod.objects.filter(pk=pk, phase="Pending"),
                phase="Failed", reason=REFUSED_REASON, message=message, finish_time=now,
                task_status="", **bump,
            )  # fmt: skip
        result.acknowledged = _update(new_binds, start_time=now, **bump)
    return result
