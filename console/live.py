"""Live updates: what changed goes on the channel layer as topics, after commit.

A *topic* names what changed, not how it looks: ``"<model label>@<namespace>"``
(``jobs.job@default``; ``core.pod@*`` when a set-based write's namespaces are unknown;
``queues.queue@`` for cluster-scoped kinds) or a free name, with no ``@``, such as
``scheduler.session`` (announced by the app that writes it: ``kube.changes.announce_on_commit``).
Pages hold one socket (``consumers.LiveConsumer``) and refresh the regions whose topics
match, each through an ordinary authorised GET of its fragment.

Why topics and not rendered fragments: users see different rows (namespace grants), so a
fragment rendered once by the writer could leak or mislead; a topic carries no data, the
refresh goes through the same view and permission checks as the page, and a session that
writes 10,000 pods costs one message, not 10,000. Every writer (an API call, the embedded
loop, a Celery worker on another host) publishes through the change stream's commit hook
(``kube.changes.add_commit_listener``); with ``REDIS_URL`` the channel layer is
Redis, so the message reaches every server process.

Without Redis (the embedded default) the channel layer lives in one process, so a write made
by another process (``manage.py apply``, a second server on the same SQLite file) would never
reach it. There the server tails the change stream instead (``tail_changes``: one indexed
query every ``TAIL_SECONDS`` for the topics written since the last look) and the writers'
hook passes on only the free topics, which the stream does not hold, so each change is
announced once, whoever wrote it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Coroutine, Iterable
from typing import Any

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.db import transaction
from django.db.models import Max

from kube.changes import latest_resource_version
from kube.models import ChangeEvent

__all__ = [
    "GROUP",
    "MESSAGE_TYPE",
    "TAIL_SECONDS",
    "changes_since",
    "ensure_tail",
    "publish",
    "publish_on_commit",
    "stream_written",
    "tails_stream",
]

logger = logging.getLogger(__name__)

GROUP = "console.live"
MESSAGE_TYPE = "live.changes"  # → LiveConsumer.live_changes
TAIL_SECONDS = 0.3
SEND_SECONDS = 2.0  # how long a writer waits for the channel layer before giving up the send
_tails: dict[int, asyncio.Task[None]] = {}  # one tail per event loop (per server process)


class _SendLoop:
    """One event loop per process, run by a daemon thread, for sends from synchronous code.

    ``async_to_sync`` outside a server's event loop (a Celery worker, the job controller's
    thread, ``manage.py``) makes a new event loop per call, and the Redis channel layer keeps
    its connections per loop: every commit paid a new loop and a new Redis connection (1.5 ms
    of CPU and 2.6 ms in all, on the controller's path once per reconciled job). Sends made
    here reuse one loop and its connections. A forked child (Celery's prefork pool) starts its
    own, since the parent's thread does not exist there.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pid = 0

    def run(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Run ``coroutine`` on the process's send loop and wait for it (``SEND_SECONDS``)."""
        asyncio.run_coroutine_threadsafe(coroutine, self._running()).result(SEND_SECONDS)

    def _running(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._pid != os.getpid():
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="live-send", daemon=True).start()
                self._loop, self._pid = loop, os.getpid()
            return self._loop


_send_loop = _SendLoop()


def tails_stream() -> bool:
    """Return whether this process announces changes by tailing the stream (no Redis)."""
    return isinstance(get_channel_layer(), InMemoryChannelLayer)


def publish(topics: Iterable[str]) -> None:
    """Send ``topics`` to every open page now (call it after commit).

    Never raises: a page missing one refresh is better than a write failing after its commit
    because the channel layer was unreachable.
    """
    names = sorted(set(topics))
    if not names:
        return
    layer = get_channel_layer()
    if layer is None:
        return
    message = {"type": MESSAGE_TYPE, "topics": names}
    try:
        if isinstance(layer, InMemoryChannelLayer):
            # in this process only: sent on the server's own loop (asgiref finds it)
            async_to_sync(layer.group_send)(GROUP, message)
        else:
            _send_loop.run(layer.group_send(GROUP, message))
    except Exception:
        logger.warning("live update of %s not sent", names, exc_info=True)


def stream_written(topics: frozenset[str]) -> None:
    """The change stream's commit hook: announce what a commit wrote.

    Served-object writes (``kind@namespace``) go unless the stream is tailed (the tail
    announces them); free topics (``console.audit``) always, since no tail reads them.
    """
    publish(topics if not tails_stream() else {t for t in topics if "@" not in t})


def changes_since(last: int) -> tuple[int, set[str]]:
    """Return the newest change-event id and the topics written after ``last``."""
    rows = (
        ChangeEvent.objects.filter(id__gt=last)
        .order_by()
        .values_list("kind", "namespace")
        .annotate(top=Max("id"))
    )
    newest, topics = last, set()
    for kind, namespace, top in rows:
        topics.add(f"{kind}@{namespace}")
        newest = max(newest, int(top))
    return newest, topics


async def _tail_forever() -> None:
    last = await database_sync_to_async(latest_resource_version)()
    layer = get_channel_layer()
    while True:
        await asyncio.sleep(TAIL_SECONDS)
        try:
            last, topics = await database_sync_to_async(changes_since)(last)
        except Exception:  # the database restarting: try again next time
            logger.warning("live tail could not read the change stream", exc_info=True)
            continue
        if topics and layer is not None:
            await layer.group_send(GROUP, {"type": MESSAGE_TYPE, "topics": sorted(topics)})


def ensure_tail() -> None:
    """Start tailing the change stream on the running event loop, once (no-op with Redis)."""
    if not tails_stream():
        return
    loop = asyncio.get_running_loop()
    task = _tails.get(id(loop))
    if task is None or task.done():
        _tails[id(loop)] = loop.create_task(_tail_forever())


def publish_on_commit(*topics: str) -> None:
    """Publish ``topics`` once the current transaction commits (at once outside one)."""
    names = list(topics)
    transaction.on_commit(lambda: publish(names))
