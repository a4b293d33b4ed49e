"""One reader of the change stream per server process, fanning each change out to every watch.

A watch used to poll the change stream itself: four queries a second per open watch, and a
database connection held by each (1,000 watches asked for 1,000 connections of PostgreSQL's
100). Now one thread per process reads the stream (every ``POLL_SECONDS``, at once when a
write of this process commits), renders each changed object once, keeps the rendered
changes in a bounded ring, and wakes the watches; each watch then takes the entries after its
own cursor from the ring without touching the database. A watch whose cursor is older than
the ring (a resume from an old resourceVersion, a kind nobody watched) reads the stream
itself (``Watcher.poll``) until it has caught up. Writes of other processes reach it through
the stream, like kube-apiserver's watch cache reading etcd.

A change is shown as its object's row reads when the change is read, so the row must already
hold the write the change records. A save's change event is inserted before its row is written
(``pre_save`` hands out the resourceVersion), and a write made outside a transaction commits the
two one after the other: for that moment the stream holds the change while the row still holds
the state before it. The hub is woken by the event's own commit, so it read exactly then, sent
the old state under the new change, and the write that followed had no change of its own left
to be heard by (``kubectl get jobflows -w`` never saw ``Succeed``). So a change whose row does
not yet show it (the row's resourceVersion is older than the change) is not read past: the read
stops before it and looks again shortly (``first_unsettled``), for at most ``SETTLE_SECONDS`` (a
write that failed after its change committed never shows).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from django.db import close_old_connections, connection

from kube.changes import WAKE, latest_resource_version
from kube.models import ChangeEvent, ChangeType
from kube.render import render
from kube.resources import Resource

__all__ = ["HUB", "Entry", "Hub", "Settling", "current_objects", "event_key", "first_unsettled"]

logger = logging.getLogger(__name__)

POLL_SECONDS = 0.25
BATCH = 2000
RING_SIZE = 20_000  # entries kept: about a minute of a busy scheduler's writes
SETTLE_POLL_SECONDS = 0.02  # a read held back by a change whose row is not written yet
SETTLE_SECONDS = 2.0  # after this, such a change is read as its row stands

Key = tuple[str, str, int]


def event_key(event: ChangeEvent) -> Key:
    """Return the key of the object an event is about: by name, else by pk."""
    if event.name:
        return (event.namespace, event.name, 0)
    return ("", "", event.object_pk)


def current_objects(resource: Resource, events: list[ChangeEvent]) -> dict[Key, Any]:
    """Return the stored objects the live (not DELETED) ``events`` are about, by event key."""
    live = [e for e in events if e.type != ChangeType.DELETED]
    if not live:
        return {}
    names = {e.name for e in live}
    found = {}
    for instance in resource.queryset().filter(name__in=names):
        namespace = getattr(instance, "namespace", "") or ""
        found[(namespace, instance.name, 0)] = instance
        found[("", "", instance.pk)] = instance
    return {
        event_key(e): found.get(event_key(e)) or found.get(("", "", e.object_pk))
        for e in live
        if (event_key(e) in found or ("", "", e.object_pk) in found)
    }


def first_unsettled(
    resource: Resource, events: list[ChangeEvent], current: dict[Key, Any]
) -> ChangeEvent | None:
    """Return the first of ``events`` (one kind's) whose row does not show it yet, or None.

    A live change is settled when its row holds it: the row's resourceVersion is the change's
    id or a later one's. A row older than its change is one whose write has not committed
    (its change event did, outside a transaction). A created object with no row yet is the same,
    unless the read also holds its deletion. Kinds without a resourceVersion of their own record
    their change after the row is written (``post_save``), so they are always settled.
    """
    if not any(f.name == "resource_version" for f in resource.model._meta.concrete_fields):
        return None
    deleted = {event_key(e) for e in events if e.type == ChangeType.DELETED}
    for event in events:
        if event.type == ChangeType.DELETED:
            continue
        key = event_key(event)
        instance = current.get(key)
        if instance is None:
            if event.type == ChangeType.ADDED and key not in deleted:
                return event
        elif instance.resource_version < event.id:
            return event
    return None


class Settling:
    """How long a reader has waited for the change it stopped at (``first_unsettled``)."""

    def __init__(self) -> None:
        self.event_id = 0
        self.since = 0.0

    def wait_for(self, event: ChangeEvent | None) -> bool:
        """Return whether to stop before ``event`` (False: read on, there is none or it is
        past waiting for)."""
        if event is None:
            self.event_id = 0
            return False
        now = time.monotonic()
        if event.id != self.event_id:
            self.event_id, self.since = event.id, now
            return True
        if now - self.since < SETTLE_SECONDS:
            return True
        logger.warning(
            "change %s of %s %s/%s: its row never showed it; sent as the row stands",
            event.id, event.kind, event.namespace, event.name,
        )  # fmt: skip
        self.event_id = 0
        return False

    @property
    def waiting(self) -> bool:
        """Return whether the last read stopped before an unsettled change."""
        return self.event_id != 0


@dataclass(slots=True)
class Entry:
    """One change as every watch of its kind sees it: the object rendered once."""

    id: int
    kind: str
    namespace: str
    key: Key
    type: str
    manifest: dict[str, Any] | None  # None: the object is gone (its DELETED entry follows)
    frames: dict[str, str] = field(default_factory=dict)  # encoded lines, by event type


@dataclass
class _Subscriber:
    label: str
    loop: asyncio.AbstractEventLoop
    wake: asyncio.Event


class Hub:
    """The process's reader of the change stream and its ring of rendered changes."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ring: collections.deque[Entry] = collections.deque()
        self.cursor = -1  # the last event read (-1: not started)
        self.floor = -1  # entries after it are all in the ring (for kinds watched since)
        self.kind_floor: dict[str, int] = {}  # per kind: rendered in the ring after this id
        self.resources: dict[str, Resource] = {}
        self.subscribers: dict[int, _Subscriber] = {}
        self.thread: threading.Thread | None = None
        self.settling = Settling()

    def subscribe(self, resource: Resource, label: str) -> tuple[int, asyncio.Event]:
        """Register a watch of ``label`` on the running loop; return its handle and wake event."""
        wake = asyncio.Event()
        subscriber = _Subscriber(label, asyncio.get_running_loop(), wake)
        with self.lock:
            self.resources[label] = resource
            handle = id(subscriber)
            self.subscribers[handle] = subscriber
            if label not in self.kind_floor:
                # Entries of this kind are rendered from the next read on.
                self.kind_floor[label] = self.cursor
            if self.thread is None:
                self.thread = self._start_thread()
        return handle, wake

    def _start_thread(self) -> threading.Thread:
        thread = threading.Thread(target=self._run, name="kube-watch-hub", daemon=True)
        thread.start()
        return thread

    def unsubscribe(self, handle: int) -> None:
        """Forget a watch; a kind nobody watches any more is no longer rendered."""
        with self.lock:
            subscriber = self.subscribers.pop(handle, None)
            if subscriber is not None and not any(
                s.label == subscriber.label for s in self.subscribers.values()
            ):
                self.kind_floor.pop(subscriber.label, None)

    def entries_after(self, label: str, cursor: int) -> tuple[list[Entry], int] | None:
        """Return the ring's entries of ``label`` after ``cursor`` and the ring's cursor,
        or None when the ring does not hold every change after ``cursor``."""
        with self.lock:
            floor = max(self.floor, self.kind_floor.get(label, self.cursor + 1))
            if self.cursor < 0 or cursor < floor:
                return None
            if cursor >= self.cursor:
                return [], self.cursor
            found = []
            for entry in reversed(self.ring):
                if entry.id <= cursor:
                    break
                if entry.kind == label:
                    found.append(entry)
            found.reverse()
            return found, self.cursor

    def known(self) -> int:
        """Return the last event the hub has read (-1 before its first read)."""
        with self.lock:
            return self.cursor

    def _run(self) -> None:
        while True:
            with self.lock:
                idle = not self.subscribers
                if idle:  # nobody watches: forget the ring, start afresh with the next watch
                    self.ring.clear()
                    self.cursor = self.floor = -1
            try:
                if not idle:
                    close_old_connections()
                    self._start()
                    while self._read():
                        pass
            except Exception:
                logger.exception("the watch hub could not read the change stream")
                connection.close()
            with WAKE:
                WAKE.wait(SETTLE_POLL_SECONDS if self.settling.waiting else POLL_SECONDS)

    def _start(self) -> None:
        if self.cursor >= 0:
            return
        latest = latest_resource_version()
        with self.lock:
            self.cursor = self.floor = latest
            for label in self.kind_floor:
                self.kind_floor[label] = latest

    def _read(self) -> bool:
        """Read and render one batch; wake the watches. Return whether a full batch came
        (and was read whole: a read stopped before an unsettled change waits a moment)."""
        events = list(ChangeEvent.objects.filter(id__gt=self.cursor).order_by("id")[:BATCH])
        if not events:
            self.settling.wait_for(None)
            return False
        with self.lock:
            watched = {label: self.resources[label] for label in self.kind_floor}
        by_kind: dict[str, list[ChangeEvent]] = collections.defaultdict(list)
        for event in events:
            if event.kind in watched:
                by_kind[event.kind].append(event)
        current = {
            label: current_objects(watched[label], kind_events)
            for label, kind_events in by_kind.items()
        }
        late = [
            found
            for label, kind_events in by_kind.items()
            if (found := first_unsettled(watched[label], kind_events, current[label])) is not None
        ]
        first_late = min(late, key=lambda event: event.id) if late else None
        if self.settling.wait_for(first_late):
            assert first_late is not None
            events = [event for event in events if event.id < first_late.id]
            if not events:
                return False
        entries = []
        for label, kind_events in by_kind.items():
            resource = watched[label]
            rendered: dict[int, dict[str, Any] | None] = {}
            for event in kind_events:
                if event.id > events[-1].id:
                    break
                key = event_key(event)
                if event.type == ChangeType.DELETED:
                    manifest = event.last_state
                elif (instance := current[label].get(key)) is not None:
                    if id(instance) not in rendered:
                        rendered[id(instance)] = _render(resource, instance, event)
                    manifest = rendered[id(instance)]
                else:
                    manifest = None
                entries.append(Entry(event.id, label, event.namespace, key, event.type, manifest))
        entries.sort(key=lambda entry: entry.id)
        with self.lock:
            self.ring.extend(entries)
            while len(self.ring) > RING_SIZE:
                self.floor = max(self.floor, self.ring.popleft().id)
            self.cursor = events[-1].id
            for label in self.kind_floor:
                if label not in watched:  # watched since this read began: not rendered in it
                    self.kind_floor[label] = max(self.kind_floor[label], self.cursor)
            loops: dict[asyncio.AbstractEventLoop, list[asyncio.Event]] = {}
            for subscriber in self.subscribers.values():
                loops.setdefault(subscriber.loop, []).append(subscriber.wake)
        for loop, wakes in loops.items():
            with contextlib.suppress(RuntimeError):  # the loop closed (the server stops)
                loop.call_soon_threadsafe(_set_all, wakes)
        return len(events) == BATCH


def _render(resource: Resource, instance: Any, event: ChangeEvent) -> dict[str, Any] | None:
    """Render one object for the ring; None (not sent, logged) when it cannot be rendered.

    Why not let it raise: the read would fail and be retried for ever, and every watch of
    the process would stop with it; one object left out is the smaller harm.
    """
    try:
        return render(resource, instance)
    except Exception:
        logger.exception("change %s: %s could not be rendered for its watches", event.id, instance)
        return None


def _set_all(wakes: list[asyncio.Event]) -> None:
    for wake in wakes:
        wake.set()


HUB = Hub()
