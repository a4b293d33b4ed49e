"""How a simulated container restarts and stops: restartPolicy, CrashLoopBackOff, grace periods.

The kubelet's rules, as the simulated kubelet (``kubelet.runtime``) applies them:

- ``restartPolicy`` (Kubernetes' default is ``Always``): under ``OnFailure`` and ``Always`` a
  container that exits non-zero is restarted in place (same pod, ``restartCount`` + 1), after
  the kubelet's back-off: 10 s, doubling after each crash, at most 5 minutes, and back to 10 s
  once a container ran 10 minutes before it crashed. While it waits the container shows
  ``waiting`` reason ``CrashLoopBackOff`` and the pod stays Running, not ready. Under ``Never``
  the pod fails. Deviation: a container that exits 0 ends the pod Succeeded under every
  policy (a real kubelet restarts it under ``Always``), so Volcano jobs whose templates leave
  restartPolicy out still complete.
- Deleting a pod: it stays Running with its ``deletionTimestamp`` while its containers get
  SIGTERM; a simulated container exits at once (the kubelet's next step after the start
  delay) unless it carries ``volcano.sh/sim-ignore-sigterm: "true"``, in which case it runs
  out its grace period (DeleteOptions' ``gracePeriodSeconds``, else the pod's
  ``terminationGracePeriodSeconds``, else 30 s) and is killed.

Pure functions of the pod's fields: no Django, no clock.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "BACK_OFF_INITIAL",
    "BACK_OFF_MAX",
    "BACK_OFF_RESET_AFTER",
    "DEFAULT_GRACE_SECONDS",
    "IGNORE_SIGTERM_ANNOTATION",
    "back_off_seconds",
    "grace_seconds",
    "ignores_sigterm",
    "restart_policy",
    "restarts_on",
]

IGNORE_SIGTERM_ANNOTATION = "volcano.sh/sim-ignore-sigterm"
DEFAULT_GRACE_SECONDS = 30
BACK_OFF_INITIAL = 10.0  # the kubelet's first crash-loop delay (seconds)
BACK_OFF_MAX = 300.0  # ... doubling up to five minutes
BACK_OFF_RESET_AFTER = 600.0  # a container that ran ten minutes starts again from 10 s
_TRUE = ("true", "yes", "1")


def restart_policy(spec: dict[str, Any]) -> str:
    """Return the pod's restartPolicy, Kubernetes' default ``Always`` when unset."""
    return str(spec.get("restartPolicy") or "Always")


def restarts_on(spec: dict[str, Any], exit_code: int) -> bool:
    """Return whether a container that exited with ``exit_code`` is restarted in place."""
    return exit_code != 0 and restart_policy(spec) in ("Always", "OnFailure")


def back_off_seconds(previous: float, ran_seconds: float) -> float:
    """Return the delay before the next restart, given the last delay and how long it ran.

    ``previous`` is 0 before the first crash. A container that ran at least
    ``BACK_OFF_RESET_AFTER`` seconds starts the sequence again.
    """
    if previous <= 0 or ran_seconds >= BACK_OFF_RESET_AFTER:
        return BACK_OFF_INITIAL
    return min(previous * 2, BACK_OFF_MAX)


def grace_seconds(spec: dict[str, Any], asked: int | None) -> int:
    """Return the grace period of a deletion: the one asked, else the pod's, else 30 s."""
    if asked is not None:
        return max(int(asked), 0)
    value = spec.get("terminationGracePeriodSeconds")
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return DEFAULT_GRACE_SECONDS


def ignores_sigterm(annotations: dict[str, Any]) -> bool:
    """Return whether the simulated container ignores SIGTERM (runs out its grace period)."""
    return str(annotations.get(IGNORE_SIGTERM_ANNOTATION, "")).strip().lower() in _TRUE
