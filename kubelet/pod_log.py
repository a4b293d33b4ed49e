"""A simulated pod's log: what its container "printed", told from the pod's own record.

The simulated runtime runs no process, so there is no stdout to keep. What a user wants from a
log here is what happened to the pod: when it was placed and where, when the container
started, its command, how it ended (exit code), and what the scheduler and the controller
said about it. Each line is built from the pod row and its Events, in time order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["pod_log", "pod_logs"]


def _stamp(value: Any) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ") if value else ""


def pod_log(pod: Any, events: Sequence[Any]) -> list[tuple[str, str]]:
    """Return ``(time, line)`` pairs of ``pod``'s simulated log, oldest first."""
    lines: list[tuple[Any, str]] = []
    for event in events:
        if event.involved_name == pod.name:
            who = event.source or "kubelet"
            lines.append((event.first_timestamp, f"[{who}] {event.reason}: {event.message}"))
    containers = (pod.spec or {}).get("containers") or []
    if pod.start_time:
        for container in containers:
            command = " ".join(
                str(c) for c in (container.get("command") or []) + (container.get("args") or [])
            )
            lines.append((pod.start_time, f"[{container.get('name', 'main')}] started "
                          f"{container.get('image', '')}" + (f": {command}" if command else "")))  # fmt: skip
    if pod.finish_time:
        code = pod.exit_code if pod.exit_code is not None else "?"
        lines.append((pod.finish_time, f"[container] exited with code {code} ({pod.phase})"))
    lines.sort(key=lambda pair: (pair[0] is None, pair[0] or 0))
    return [(_stamp(when), text) for when, text in lines]


def pod_logs(pods: Sequence[Any], events: Sequence[Any]) -> dict[int, list[tuple[str, str]]]:
    """Return each pod's simulated log, keyed by pod id."""
    by_name: dict[str, list[Any]] = {}
    for event in events:
        by_name.setdefault(event.involved_name, []).append(event)
    return {pod.pk: pod_log(pod, by_name.get(pod.name, [])) for pod in pods}
