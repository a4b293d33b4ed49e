"""Named failpoints for crash testing, as etcd's gofail and Kubernetes' fault injection use them.

In the kernel because every layer above has spots: the job controller, the command handling,
the simulated kubelet's clock and the scheduling cycle. A failpoint is a named spot
(``POINTS``) where a test can make the process die on the spot, wait, or fail the step:

- ``kill``: ``os._exit(137)``, what SIGKILL leaves behind: no ``finally``, no rollback sent, no
  lease given back; the database rolls the open transaction back when the connection drops;
- ``delay``: sleep ``value`` seconds, then go on;
- ``error``: raise ``FailpointError`` (the step fails as any bug would; the caller's error path).

Two more are not spots but knobs: ``controller.drop-pod-change`` drops every ``value``-th
pod-change notification to the controller (see ``dropped``; the periodic resync of
``jobs.controller.reconcile`` repairs what was dropped), and ``clock.offset`` moves the
simulated clock (``now``) ``value`` seconds ahead, so TTLs and timeouts can be tested without
waiting. ``match`` restricts a failpoint to one subject (``bind.node``: the node's name).

Armed two ways, both shared by every process that reads them:

- the ``VOLCANO_FAILPOINTS`` setting (environment), read once per process:
  ``name=action[:value][@match][*times]`` separated by ``;``, e.g.
  ``session.binds-staged=kill;bind.node=error@n2;clock.offset=delay:3600``;
- ``manage.py failpoint arm NAME ACTION`` writes a ``Failpoint`` row; every process that has
  ``VOLCANO_FAILPOINTS_ENABLED`` reloads the rows once per controller pass / scheduling cycle
  (``refresh``), and a row with ``times`` fires that many times across all processes (on
  PostgreSQL; SQLite's one writer is busy with the caller's transaction, so there each process
  counts for itself).

Off and free of cost unless armed: ``hit`` is one dict lookup on an empty dict, and ``refresh``
reads nothing while the feature is off. Refused in production settings
(``VOLCANO_PRODUCTION``): arming raises ``ImproperlyConfigured`` there.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone

from kube.models import Failpoint

__all__ = [
    "ACTIONS",
    "POINTS",
    "Armed",
    "FailpointError",
    "arm",
    "clear",
    "clock_offset",
    "dropped",
    "hit",
    "now",
    "parse",
    "refresh",
]

logger = logging.getLogger(__name__)

POINTS = {
    "controller.pods-committed": "after the controller commits the first pods of a job",
    "controller.command-taken": "between consuming a Command and applying its action",
    "controller.job-read": "between reading a job and writing its status",
    "controller.pod-delete": "on the controller deleting a pod",
    "session.binds-staged": "after a session stages its binds and before they commit",
    "bind.node": "on binding a pod to a node (match: the node's name)",
    "controller.drop-pod-change": "drop every value-th pod-change notification to the controller",
    "clock.offset": "move the simulated clock value seconds ahead",
}
ACTIONS = ("kill", "delay", "error")


class FailpointError(RuntimeError):
    """The step failed because a failpoint said so."""


@dataclass(frozen=True, slots=True)
class Armed:
    """One armed failpoint; ``times`` None fires every time, ``pk`` is its row when shared."""

    name: str
    action: str
    value: float = 0.0
    match: str = ""
    times: int | None = None
    pk: int | None = None


_armed: dict[str, Armed] = {}
_local: dict[str, Armed] = {}  # armed by ``arm`` (tests): kept across ``refresh``
_spent: dict[int, int] = {}  # rows' firings this process counted itself (SQLite: see ``_use``)
_counts: dict[str, int] = {}
_from_setting: dict[str, Armed] | None = None


def _production() -> bool:
    return bool(getattr(settings, "VOLCANO_PRODUCTION", False))


def parse(text: str) -> dict[str, Armed]:
    """Return the failpoints a ``VOLCANO_FAILPOINTS`` value arms; ValueError naming the bad one."""
    found: dict[str, Armed] = {}
    for item in (part.strip() for part in text.split(";")):
        if not item:
            continue
        name, _, rest = item.partition("=")
        rest, _, times = rest.partition("*")
        rest, _, match = rest.partition("@")
        action, _, value = rest.partition(":")
        count = int(times) if times else None
        armed = Armed(name.strip(), action.strip(), float(value or 0), match.strip(), count)
        found[armed.name] = check(armed)
    return found


def check(armed: Armed) -> Armed:
    """Return ``armed`` if its name and action are known; ValueError naming the bad field."""
    if armed.name not in POINTS:
        raise ValueError(f"unknown failpoint {armed.name!r}; known: {', '.join(POINTS)}")
    if armed.name in ("controller.drop-pod-change", "clock.offset"):
        if armed.value <= 0 and armed.name == "controller.drop-pod-change":
            raise ValueError("controller.drop-pod-change needs value N >= 1 (every N-th)")
    elif armed.action not in ACTIONS:
        raise ValueError(f"unknown action {armed.action!r}; known: {', '.join(ACTIONS)}")
    return armed


def refresh() -> None:
    """Load the armed failpoints: the setting once, the shared rows each call when enabled."""
    global _from_setting
    if _from_setting is None:
        text = str(getattr(settings, "VOLCANO_FAILPOINTS", "") or "")
        if text and _production():
            raise ImproperlyConfigured("failpoints are refused in production settings")
        _from_setting = parse(text)
    armed = dict(_from_setting)
    if getattr(settings, "VOLCANO_FAILPOINTS_ENABLED", False) and not _production():
        for row in Failpoint.objects.all():
            times = None if row.times is None else row.times - _spent.get(row.pk, 0)
            if times is None or times > 0:
                armed[row.name] = Armed(row.name, row.action, row.value, row.match, times, row.pk)
    armed.update(_local)
    # Refill in place without a moment empty: the controllers' thread and the session's cycle
    # both refresh, and a failpoint hit while the other cleared the table would be missed.
    _armed.update(armed)
    for name in [name for name in _armed if name not in armed]:
        _armed.pop(name, None)


def arm(armed: Armed) -> None:
    """Arm ``armed`` in this process only (tests); refused in production settings."""
    if _production():
        raise ImproperlyConfigured("failpoints are refused in production settings")
    _armed[armed.name] = _local[armed.name] = check(armed)


def clear() -> None:
    """Disarm every failpoint of this process (the setting's and rows: until ``refresh``)."""
    _armed.clear()
    _local.clear()
    _counts.clear()


def hit(name: str, subject: str = "", *, when: bool = True) -> None:
    """Act as the failpoint ``name`` says, if armed (for ``subject``, when it has a match).

    ``when`` False: the step did not happen this time (no Command taken, no bind staged).
    """
    armed = _armed.get(name)
    if armed is None or not when:
        return
    if armed.match and armed.match != subject:
        return
    if not _use(armed):
        return
    logger.warning("failpoint %s: %s %s", name, armed.action, subject)
    if armed.action == "kill":
        for handler in logging.getLogger().handlers:
            handler.flush()
        os._exit(137)
    if armed.action == "delay":
        time.sleep(armed.value)
        return
    raise FailpointError(f"failpoint {name} failed the step")


def _use(armed: Armed) -> bool:
    """Count one firing; False once ``times`` is used up (shared rows count across processes)."""
    if armed.times is None:
        return True
    if armed.pk is not None:
        # Counted on a connection of its own, committed at once: a kill rolls back the caller's
        # transaction, and the count must survive it or the next process would fire again.
        # SQLite has one writer, busy with the caller's transaction: there each process counts.
        if Failpoint.shared_counts():
            if not Failpoint.use(armed.pk):
                _armed.pop(armed.name, None)
                return False
        else:
            if armed.times <= 0:
                return False
            _spent[armed.pk] = _spent.get(armed.pk, 0) + 1
    elif armed.times <= 0:
        return False
    left = armed.times - 1
    _armed[armed.name] = replace(armed, times=left)
    if armed.name in _local:
        _local[armed.name] = _armed[armed.name]
    return True


def dropped(name: str = "controller.drop-pod-change") -> bool:
    """Return True for every N-th notification while the drop failpoint is armed."""
    armed = _armed.get(name)
    if armed is None:
        return False
    count = _counts.get(name, 0) + 1
    _counts[name] = count
    return count % max(int(armed.value), 1) == 0


def clock_offset() -> timedelta:
    """Return how far ``clock.offset`` moves the simulated clock (zero when unarmed)."""
    armed = _armed.get("clock.offset")
    return timedelta(seconds=armed.value) if armed is not None else timedelta(0)


def now() -> datetime:
    """Return the simulated clock: the current time plus ``clock.offset``."""
    return timezone.now() + clock_offset()
