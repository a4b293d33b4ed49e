"""``?watch=1``: the change stream as newline-delimited JSON events, kubectl's framing.

Each line is ``{"type": "ADDED"|"MODIFIED"|"DELETED"|"ERROR", "object": ...}``.
Without a resourceVersion (or with ``0``) the watch first sends every matching
object as ADDED, then the changes after that list; with one it replays every
change after it. Objects are shown in their current state (several changes to
one object read in one poll are sent once, as its latest, and as ADDED when the
first of them created it); a deleted object is sent in its last state. Under a
label or field selector, an object that starts matching is ADDED and one that
stops matching is DELETED, as kube-apiserver sends them. A version older than
what the stream still keeps is 410 Expired in an ERROR event, as Kubernetes
does, so clients relist.

Under ASGI (daphne) the stream is an async generator, so it flows line by line;
under WSGI and the test client it is a plain generator.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.db import connection
from django.db.models import Min
from django.http import HttpRequest, StreamingHttpResponse

from kube.changes import WAKE, latest_resource_version, model_label
from kube.listing import ListQuery, filtered
from kube.models import ChangeEvent, ChangeType
from kube.render import render
from kube.resources import Resource
from kube.selectors import manifest_value
from kube.status import KubeError
from kube.tables import table
from kube.watch_hub import HUB, Entry, Hub, Settling, current_objects, event_key, first_unsettled

__all__ = ["Watcher", "watch_response"]

POLL_SECONDS = 0.25
HUB_WAIT_SECONDS = 1.0  # a watch behind the ring looks again this often without a wake
BATCH = 500


class Watcher:
    """The state of one watch: where it is in the stream and what it filters."""

    def __init__(
        self, resource: Resource, query: ListQuery, since: int | None, *, table: str = ""
    ) -> None:
        self.resource = resource
        self.table = table  # "": objects; else each object as a one-row Table (kubectl get -w)
        self.query = query
        self.since = since
        self.cursor = 0
        self.label = model_label(resource.model)
        self.settling = Settling()
        # With a selector, the objects this client holds as matching: an object that starts
        # matching is ADDED for it and one that stops matching is DELETED, as kube-apiserver
        # sends them (``kubectl get pods --field-selector status.phase=Running -w`` loses a
        # pod that finished). None without a selector: every change is sent as it is.
        self.matching: set[tuple[str, str, int]] | None = (
            set() if query.labels or query.fields else None
        )

    def start(self) -> list[str]:
        """Return the opening lines: the current objects (no version) or an expiry error."""
        if self.since:
            oldest = ChangeEvent.objects.aggregate(oldest=Min("id"))["oldest"]
            if oldest is not None and self.since < oldest - 1:
                error = KubeError(
                    410, f"too old resource version: {self.since} ({oldest - 1})", reason="Expired"
                )
                self.cursor = -1
                return [_frame("ERROR", error.body())]
            self.cursor = self.since
            if self.matching is not None:
                # What the client's list at that version held, as near as the rows tell:
                # the objects matching now (the list and this watch are moments apart).
                # Keys only: a selector over thousands of pods need not decode their JSON.
                namespace = "namespace" if self.resource.namespaced else "name"
                for pk, name, where in filtered(self.resource, self.query).values_list(
                    "pk", "name", namespace
                ):
                    self.matching.update(_keys(self.resource, where, name, pk))
            return []
        self.cursor = latest_resource_version()
        instances = list(filtered(self.resource, self.query))
        lines = []
        for instance in instances:
            manifest = render(self.resource, instance)
            if self._selected(manifest):
                lines.append(_frame(ChangeType.ADDED, self._shown(manifest)))
                if self.matching is not None:
                    self.matching.update(
                        _keys(
                            self.resource,
                            getattr(instance, "namespace", ""),
                            instance.name,
                            instance.pk,
                        )
                    )
        return lines

    @property
    def finished(self) -> bool:
        """Return whether the stream ended (after an ERROR)."""
        return self.cursor < 0

    def poll(self, *, known: int = -1) -> list[str]:
        """Return the lines for every change since the cursor, read from the change stream,
        and advance it. ``known``: an event id every change up to which has committed (the
        hub's cursor); a short read moves the cursor up to it even when it had no change of
        this kind, so the watch can then follow the hub's ring. A change whose row does not
        show it yet stops the read before it (``watch_hub.first_unsettled``)."""
        events = list(
            ChangeEvent.objects.filter(kind=self.label, id__gt=self.cursor).order_by("id")[:BATCH]
        )
        current = current_objects(self.resource, events)
        if self.settling.wait_for(first_unsettled(self.resource, events, current)):
            late = self.settling.event_id
            events = [event for event in events if event.id < late]
            self.cursor = max(self.cursor, late - 1)
        elif len(events) < BATCH and known > self.cursor:
            self.cursor = known
        if not events:
            return []
        self.cursor = max(self.cursor, events[-1].id)
        events = [event for event in events if self._namespace_allowed(event.namespace)]
        entries = []
        for event in events:
            key = event_key(event)
            if event.type == ChangeType.DELETED:
                manifest = event.last_state
            else:
                instance = current.get(key)
                manifest = render(self.resource, instance) if instance is not None else None
            entries.append(Entry(event.id, self.label, event.namespace, key, event.type, manifest))
        return self._lines(entries)

    def take(self, hub: Hub) -> list[str] | None:
        """Return the lines for the hub's entries after the cursor and advance it; None when
        the hub's ring does not reach back to the cursor (``poll`` the stream instead)."""
        found = hub.entries_after(self.label, self.cursor)
        if found is None:
            return None
        entries, cursor = found
        self.cursor = max(self.cursor, cursor)
        return self._lines([e for e in entries if self._namespace_allowed(e.namespace)])

    def _lines(self, entries: list[Entry]) -> list[str]:
        """Return the lines for ``entries`` (one read): each object once, as its latest."""
        last_of = {entry.key: entry.id for entry in entries}
        first_of: dict[tuple[str, str, int], str] = {}
        for entry in entries:
            first_of.setdefault(entry.key, entry.type)
        lines = []
        for entry in entries:
            if last_of[entry.key] != entry.id:
                continue  # a later change of the same object follows in this read
            change = entry.type
            manifest = entry.manifest
            if manifest is None:
                continue  # deleted since; its DELETED event comes next
            if change != ChangeType.DELETED and first_of[entry.key] == ChangeType.ADDED:
                change = ChangeType.ADDED  # created in this read: new to the client
            sent = self._as_seen(entry.key, change, manifest)
            if sent is None:
                continue
            if self.table:
                lines.append(_frame(sent, self._shown(manifest)))
            else:  # the same line for every watch of the object: encoded once
                frame = entry.frames.get(sent)
                if frame is None:
                    frame = entry.frames[sent] = _frame(sent, manifest)
                lines.append(frame)
        return lines

    def _as_seen(self, key: tuple[str, str, int], change: str, manifest: Any) -> str | None:
        """Return the event type this client is sent for ``change``, or None for none."""
        selected = self._selected(manifest)
        if self.matching is None:
            return change if selected else None
        held = key in self.matching
        if change == ChangeType.DELETED:
            self.matching.discard(key)
            return change if held or selected else None
        if selected:
            self.matching.add(key)
            return change if held else ChangeType.ADDED  # new to this client's view
        self.matching.discard(key)
        return ChangeType.DELETED if held else None  # no longer selected: gone from its view

    def _namespace_allowed(self, namespace: str) -> bool:
        if not self.resource.namespaced:
            return True
        if self.query.namespace is not None and namespace != self.query.namespace:
            return False
        allowed = self.query.allowed_namespaces
        return allowed is None or namespace in allowed

    def _shown(self, manifest: dict[str, Any]) -> dict[str, Any]:
        return table(self.resource, [manifest], include=self.table) if self.table else manifest

    def _selected(self, manifest: dict[str, Any]) -> bool:
        labels = manifest.get("metadata", {}).get("labels") or {}
        if not all(requirement.test_labels(labels) for requirement in self.query.labels):
            return False
        return all(
            requirement.test(manifest_value(manifest, requirement.key))
            for requirement in self.query.fields
        )


def _keys(
    resource: Resource, namespace: str | None, name: str, pk: int
) -> tuple[tuple[str, str, int], ...]:
    """Return the keys an event about an object may carry: by name, or by pk (``_key``)."""
    where = (namespace or "") if resource.namespaced else ""
    return ((where, name, 0), ("", "", pk))


def _frame(change: str, manifest: Any) -> str:
    return json.dumps({"type": str(change), "object": manifest}, separators=(",", ":")) + "\n"


def _sync_stream(watcher: Watcher, opening: list[str], timeout: float) -> Iterator[str]:
    yield ""  # the headers now (see _async_stream)
    yield from opening
    deadline = time.monotonic() + timeout
    while not watcher.finished and time.monotonic() < deadline:
        lines = watcher.poll()
        yield from lines
        if not lines:
            with WAKE:
                WAKE.wait(min(POLL_SECONDS, max(0.0, deadline - time.monotonic())))


async def _async_stream(watcher: Watcher, opening: list[str], timeout: float) -> AsyncIterator[str]:
    # Daphne sends the status line and headers with the first body chunk. A watch with
    # nothing to say yet (an empty selection, no change) would leave the client waiting
    # for its headers, and client-go's reflector cannot stop while it waits: kubectl's
    # `delete --wait` hung when the pod was gone before it listed. kube-apiserver flushes
    # the headers as the watch opens; an empty chunk does the same here.
    yield ""
    for line in opening:
        yield line
    deadline = time.monotonic() + timeout
    # The process's hub reads the stream for every watch (kube.watch_hub); this watch reads it
    # itself only until it has caught up with the hub's ring.
    handle, wake = HUB.subscribe(watcher.resource, watcher.label)
    try:
        while not watcher.finished and time.monotonic() < deadline:
            wake.clear()  # before taking: an entry added meanwhile sets it again
            lines = watcher.take(HUB)
            if lines is None:
                lines = await sync_to_async(_poll_and_release)(watcher, HUB.known())
                if lines:
                    for line in lines:
                        yield line
                    continue
            for line in lines:
                yield line
            if not lines:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(
                        wake.wait(), min(HUB_WAIT_SECONDS, max(0.0, deadline - time.monotonic()))
                    )
    finally:
        HUB.unsubscribe(handle)


def _poll_and_release(watcher: Watcher, known: int) -> list[str]:
    """Read the stream for one watch, then give its connection back (to the pool): a watch
    lasts minutes, and the connection it opened would otherwise stay taken all that time."""
    try:
        return watcher.poll(known=known)
    finally:
        connection.close()


def watch_response(
    request: HttpRequest,
    resource: Resource,
    query: ListQuery,
    *,
    since: int | None,
    timeout: int,
    table: str = "",
) -> StreamingHttpResponse:
    """Return the streaming response of a watch lasting at most ``timeout`` seconds."""
    watcher = Watcher(resource, query, since, table=table)
    opening = watcher.start()
    stream: Iterator[str] | AsyncIterator[str]
    if isinstance(request, ASGIRequest):
        # The request's connection would stay taken until the stream ends (Django gives it
        # back when the response finishes): give it back now, the hub reads for the watch.
        if not connection.in_atomic_block:
            connection.close()
        stream = _async_stream(watcher, opening, timeout)
    else:
        stream = _sync_stream(watcher, opening, timeout)
    response = StreamingHttpResponse(stream, content_type="application/json")
    response["Cache-Control"] = "no-cache"
    return response
