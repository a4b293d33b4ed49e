"""The process's shared reader of the change stream (``kube.watch_hub``) and the watch's own
reads lose no change: a change read before its row's write has committed (a save made outside
a transaction commits its change event first) is not sent as the row stood before it.

This is how ``kubectl get jobflows -w`` missed ``Succeed``: the hub, woken by the change
event's commit, read the flow's row before the row was written, sent the flow as ``Running``
under the ``Succeed`` change, and had nothing left to read when the row was written. Each
test reads the stream at that moment (from a ``pre_save`` receiver, which runs after the
change event is inserted and before the row is written), then after the save, and looks at
what the watch sent.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import IntegrityError
from django.db.models.signals import pre_save

import kube.render
from kube import registry
from kube.changes import latest_resource_version
from kube.listing import ListQuery
from kube.models import ChangeEvent
from kube.watch import Watcher
from kube.watch_hub import Hub
from queues.models import Queue

pytestmark = pytest.mark.django_db(transaction=True)


def _resource() -> Any:
    entry = registry.entry_for_model(Queue)
    assert entry is not None
    return entry.resource


def _hub() -> Hub:
    """A hub read by the test itself (no thread of its own), with one queue watch subscribed."""
    hub = Hub()
    hub._start_thread = lambda: threading.current_thread()  # type: ignore[method-assign]

    async def subscribe() -> None:
        hub.subscribe(_resource(), "queues.queue")

    asyncio.run(subscribe())  # its wake-ups then go to a closed loop, which is allowed
    hub._start()
    return hub


def _watcher() -> Watcher:
    """A queue watch from the stream's head, as a client's list hands it its version."""
    if latest_resource_version() == 0:  # no version to watch from yet (0 lists instead)
        Queue.objects.create(name="before-the-watch", weight=1)
    watcher = Watcher(_resource(), ListQuery(), latest_resource_version())
    assert watcher.start() == []
    return watcher


@pytest.fixture
def mid_save() -> Iterator[Callable[[Callable[[], object]], None]]:
    """Run a read at the moment a queue's change event is in and its row not yet written."""
    reads: list[Callable[[], object]] = []

    def read_mid_save(sender: Any, instance: Any, **kwargs: Any) -> None:
        for read in reads:
            read()

    pre_save.connect(read_mid_save, sender=Queue, dispatch_uid="test-watch-hub-mid-save")
    try:
        yield reads.append
    finally:
        pre_save.disconnect(sender=Queue, dispatch_uid="test-watch-hub-mid-save")


def _sent(lines: list[str]) -> list[tuple[str, str, int]]:
    """Return (type, name, spec.weight) of each event line."""
    events = [json.loads(line) for line in lines]
    return [
        (e["type"], e["object"]["metadata"]["name"], e["object"]["spec"]["weight"]) for e in events
    ]


def test_the_hub_sends_a_change_read_before_its_row_was_written_as_written(
    mid_save: Callable[[Callable[[], object]], None],
) -> None:
    queue = Queue.objects.create(name="q1", weight=1)
    hub = _hub()
    watcher = _watcher()
    mid_save(lambda: hub._read())

    queue.weight = 7
    queue.save()  # outside a transaction, as the flow controller's saves were
    hub._read()
    sent = watcher.take(hub)

    assert sent is not None
    assert _sent(sent)[-1] == ("MODIFIED", "q1", 7)


def test_the_hub_sends_an_object_created_while_it_read_once_its_row_is_in(
    mid_save: Callable[[Callable[[], object]], None],
) -> None:
    hub = _hub()
    watcher = _watcher()
    mid_save(lambda: hub._read())

    Queue.objects.create(name="q2", weight=3)
    hub._read()
    sent = watcher.take(hub)

    assert sent is not None
    assert _sent(sent) == [("ADDED", "q2", 3)]


def test_a_watch_reading_the_stream_itself_sends_the_change_as_written(
    mid_save: Callable[[Callable[[], object]], None],
) -> None:
    queue = Queue.objects.create(name="q3", weight=1)
    watcher = _watcher()
    sent: list[str] = []
    mid_save(lambda: sent.extend(watcher.poll()))

    queue.weight = 5
    queue.save()
    sent.extend(watcher.poll())

    assert _sent(sent)[-1] == ("MODIFIED", "q3", 5)


def test_a_save_the_database_refuses_leaves_no_change_behind() -> None:
    before = latest_resource_version()

    with pytest.raises(IntegrityError):
        Queue.objects.create(name="bad-weight", weight=0)  # the row's check refuses it

    assert not ChangeEvent.objects.filter(id__gt=before).exists()


def test_a_hub_holds_no_change_back_once_its_row_shows_a_later_one(
    mid_save: Callable[[Callable[[], object]], None],
) -> None:
    queue = Queue.objects.create(name="q4", weight=1)
    hub = _hub()
    watcher = _watcher()
    for weight in (2, 3):
        queue.weight = weight
        queue.save()
    hub._read()  # both changes at once: the row shows the later one, and so both are sent

    sent = watcher.take(hub)

    assert sent is not None
    assert _sent(sent) == [("MODIFIED", "q4", 3)]
    assert not hub.settling.waiting


def test_an_object_that_cannot_be_rendered_does_not_stop_the_other_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hub = _hub()
    watcher = _watcher()

    def render(resource: Any, instance: Any) -> dict[str, Any]:
        if instance.name == "broken":
            raise ValueError("cannot render")
        return kube.render.render(resource, instance)

    monkeypatch.setattr("kube.watch_hub.render", render)
    Queue.objects.create(name="broken", weight=1)
    Queue.objects.create(name="fine", weight=2)
    hub._read()
    sent = watcher.take(hub)

    assert sent is not None
    assert _sent(sent) == [("ADDED", "fine", 2)]
