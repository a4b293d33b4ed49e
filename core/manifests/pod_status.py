"""What a kubelet reports of a pod: the Ready conditions and ``containerStatuses``.

Derived when a pod is shown, from the columns the simulated kubelet writes
(``kubelet.runtime``): nothing is stored twice and the hot tick writes no JSON. The
scheduler's own condition (``PodScheduled``, ``scheduler.cache.pod_status``) is kept as
stored. Like the kubelet:

- ``Initialized`` True from the moment the kubelet took the pod (no init containers run);
- ``ContainersReady`` and ``Ready`` True while the container runs, False with reason
  ``ContainersNotReady`` while it is created or waits in ``CrashLoopBackOff``, and
  ``PodCompleted`` / ``PodFailed`` once the pod ended; each ``lastTransitionTime`` is the
  time the status last flipped (container start, crash, end);
- each container of the spec gets a status with the fields the official client requires
  (``name``, ``image``, ``imageID``, ``ready``, ``restartCount``) and its state:
  ``waiting`` (``ContainerCreating``, ``CrashLoopBackOff``), ``running`` (``startedAt``) or
  ``terminated`` (``exitCode``, ``reason``, ``startedAt``, ``finishedAt``), plus the last
  crash as ``lastState``. Every container of a simulated pod shares one lifecycle.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from apis.wire import format_time
from core.models import Pod, PodPhase

__all__ = ["container_statuses", "containers_ready", "pod_conditions"]

_KUBELET_CONDITIONS = ("Initialized", "Ready", "ContainersReady")
_LOST = "The container could not be located when the pod was terminated"


def _condition(kind: str, status: bool, since: dt.datetime | None, reason: str = "",
               message: str = "") -> dict[str, Any]:  # fmt: skip
    cond: dict[str, Any] = {"type": kind, "status": "True" if status else "False"}
    if reason:
        cond["reason"] = reason
    if message:
        cond["message"] = message
    cond["lastProbeTime"] = None
    cond["lastTransitionTime"] = format_time(since) if since is not None else None
    return cond


def _names(pod: Pod) -> list[str]:
    return [str(c.get("name", "")) for c in pod.spec.get("containers") or [{}]]


def _crashed_at(pod: Pod) -> dt.datetime | None:
    finished = ((pod.last_state or {}).get("terminated") or {}).get("finishedAt")
    try:
        return dt.datetime.fromisoformat(str(finished).replace("Z", "+00:00"))
    except ValueError:
        return pod.start_time


def _began(pod: Pod) -> bool:
    """Return whether the kubelet took the pod (it has containers to report)."""
    if pod.phase in (PodPhase.SUCCEEDED, PodPhase.FAILED):
        return pod.start_time is not None or pod.exit_code is not None
    return pod.node_id is not None and pod.start_time is not None


def containers_ready(pod: Pod) -> bool:
    """Return whether the pod is Running with every container ready (its ``Ready`` is True)."""
    if pod.phase != PodPhase.RUNNING:
        return False
    return pod.running_since is not None or pod.back_off_until is None


def pod_conditions(pod: Pod) -> list[dict[str, Any]]:
    """Return ``status.conditions``: the kubelet's three (once it took the pod) and the stored."""
    stored = [c for c in pod.conditions or [] if isinstance(c, dict)]
    if not _began(pod):
        return stored
    unready = f"containers with unready status: [{' '.join(_names(pod))}]"
    ended = pod.phase in (PodPhase.SUCCEEDED, PodPhase.FAILED)
    initialized = _condition(
        "Initialized",
        True,
        pod.start_time or pod.finish_time,
        "PodCompleted" if pod.phase == PodPhase.SUCCEEDED else "",
    )
    if ended:
        reason = "PodCompleted" if pod.phase == PodPhase.SUCCEEDED else "PodFailed"
        ready = (False, pod.finish_time, reason, "")
    elif pod.phase == PodPhase.RUNNING and pod.running_since is not None:
        ready = (True, pod.running_since, "", "")
    elif pod.phase == PodPhase.RUNNING and pod.back_off_until is None:
        ready = (True, pod.start_time, "", "")  # running since before the kubelet kept times
    elif pod.phase == PodPhase.RUNNING:
        ready = (False, _crashed_at(pod), "ContainersNotReady", unready)
    else:
        ready = (False, pod.start_time, "ContainersNotReady", unready)
    derived = [
        initialized,
        _condition("Ready", *ready),
        _condition("ContainersReady", *ready),
    ]
    return derived + [c for c in stored if c.get("type") not in _KUBELET_CONDITIONS]


def _state(pod: Pod, name: str) -> tuple[dict[str, Any], bool]:
    """Return the container's ``state`` and whether it is running."""
    if pod.phase in (PodPhase.SUCCEEDED, PodPhase.FAILED):
        code = pod.exit_code
        terminated: dict[str, Any] = {}
        if code is None and pod.phase == PodPhase.FAILED:
            terminated = {"exitCode": 137, "reason": "ContainerStatusUnknown", "message": _LOST}
        else:
            code = code or 0
            terminated = {"exitCode": code, "reason": "Completed" if code == 0 else "Error"}
        started = pod.running_since or pod.start_time
        if started is not None:
            terminated["startedAt"] = format_time(started)
        if pod.finish_time is not None:
            terminated["finishedAt"] = format_time(pod.finish_time)
        return {"terminated": terminated}, False
    if pod.phase == PodPhase.RUNNING and pod.back_off_until is not None:
        message = (
            f"back-off {int(pod.back_off_seconds)}s restarting failed container={name} "
            f"pod={pod.name}_{pod.namespace}({pod.uid})"
        )
        return {"waiting": {"reason": "CrashLoopBackOff", "message": message}}, False
    if pod.phase == PodPhase.RUNNING:
        started = pod.running_since or pod.start_time
        return {"running": {"startedAt": format_time(started) if started else None}}, True
    return {"waiting": {"reason": "ContainerCreating"}}, False


def container_statuses(pod: Pod) -> list[dict[str, Any]]:
    """Return ``status.containerStatuses`` (none before the kubelet took the pod)."""
    if not _began(pod):
        return []
    statuses = []
    for container in pod.spec.get("containers") or [{}]:
        name = str(container.get("name", ""))
        state, running = _state(pod, name)
        status: dict[str, Any] = {
            "name": name,
            "image": str(container.get("image", "")),
            "imageID": "",
            "ready": running,
            "started": running,
            "restartCount": pod.restart_count,
            "state": state,
        }
        if pod.last_state:
            status["lastState"] = pod.last_state
        statuses.append(status)
    return statuses
