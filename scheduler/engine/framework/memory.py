"""What a plugin remembers from one session to the next (Volcano keeps it in package variables).

Volcano builds its plugins once per session too, so a plugin that must remember something across
sessions keeps it in a Go package variable that lives as long as the scheduler process (tdm's
``lastEvictAt``: victims are looked for at most once per ``tdm.evict.period``). A module-level
variable here would also be shared by every scenario, what-if and test run in the same Python
process, so one run would change the next one's decisions. Instead the caller hands the session
a ``PluginMemory``: the live worker keeps one for the life of its process (Volcano's behaviour,
a restarted scheduler forgets), while ``run_session`` without one gives each session a fresh,
empty memory, so simulate and the what-if always behave as a scheduler's first session.
"""

from __future__ import annotations

import threading
from datetime import datetime

__all__ = ["PluginMemory"]


class PluginMemory:
    """Values plugins keep between sessions, by plugin name and key."""

    __slots__ = ("_lock", "_started", "_values")

    def __init__(self) -> None:
        self._values: dict[tuple[str, str], object] = {}
        self._lock = threading.Lock()
        self._started: datetime | None = None

    def note_session(self, now: datetime) -> None:
        """Note a session opening at ``now``: the first one is when the scheduler started.

        Volcano stamps some package variables when the process starts (rescheduling's last
        run); the first session's clock stands for that moment here.
        """
        with self._lock:
            if self._started is None:
                self._started = now

    @property
    def started(self) -> datetime | None:
        """Return the first session's clock (None before any session)."""
        return self._started

    def get(self, plugin: str, key: str) -> object | None:
        """Return what ``plugin`` stored under ``key``, or None."""
        with self._lock:
            return self._values.get((plugin, key))

    def put(self, plugin: str, key: str, value: object) -> None:
        """Store ``value`` for ``plugin`` under ``key`` (replacing the previous one)."""
        with self._lock:
            self._values[(plugin, key)] = value
