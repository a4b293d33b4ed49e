"""The live socket: who may open it, which topics reach whom, and writes publishing topics."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.db import transaction
from django.utils import timezone

from console import live
from console.consumers import CLOSE_FORBIDDEN, CLOSE_UNAUTHENTICATED
from console.routing import websocket_urlpatterns
from jobs.models import Job
from kube.actor import acting_as
from queues.models import Queue
from scheduler.models import SessionRecord

pytestmark = pytest.mark.django_db(transaction=True)


def _communicator(user: Any) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), "/ws/live/")
    communicator.scope["user"] = user
    return communicator


async def _received(communicator: WebsocketCommunicator, timeout: float = 1.0) -> list[str]:
    """Return the topics of the next message, or [] when none comes within ``timeout``."""
    if await communicator.receive_nothing(timeout=timeout):
        return []
    message = await communicator.receive_json_from()
    return list(message["topics"])


def test_an_anonymous_visitor_gets_no_socket() -> None:
    async def scenario() -> tuple[bool, Any]:
        connected, code = await _communicator(AnonymousUser()).connect()
        return connected, code

    connected, code = asyncio.run(scenario())
    assert not connected
    assert code == CLOSE_UNAUTHENTICATED


def test_a_user_without_a_role_gets_no_socket(console_login: Callable[..., Any]) -> None:
    user = console_login("nobody", None).user

    async def scenario() -> tuple[bool, Any]:
        return await _communicator(user).connect()  # type: ignore[no-any-return]

    connected, code = asyncio.run(scenario())
    assert not connected
    assert code == CLOSE_FORBIDDEN


def test_a_change_reaches_readers_of_its_namespace_and_no_one_else(
    console_login: Callable[..., Any],
) -> None:
    ada = console_login("ada", "viewer", ("team-a",)).user
    bob = console_login("bob", "viewer", ("team-b",)).user
    olga = console_login("olga", "operator").user

    async def scenario() -> tuple[list[str], list[str], list[str]]:
        sockets = [_communicator(u) for u in (ada, bob, olga)]
        for socket in sockets:
            connected, _ = await socket.connect()
            assert connected
        await asyncio.to_thread(live.publish, ["jobs.job@team-a", "queues.queue@"])
        got = [await _received(s) for s in sockets]
        for socket in sockets:
            await socket.disconnect()
        return got[0], got[1], got[2]

    ada_got, bob_got, olga_got = asyncio.run(scenario())
    assert ada_got == ["jobs.job@team-a", "queues.queue@"]
    assert bob_got == ["queues.queue@"]  # the cluster-wide queue, never team-a's job
    assert olga_got == ["jobs.job@team-a", "queues.queue@"]


def test_changes_close_together_arrive_as_one_message(console_login: Callable[..., Any]) -> None:
    olga = console_login("olga", "operator").user

    async def scenario() -> tuple[list[str], list[str]]:
        socket = _communicator(olga)
        await socket.connect()
        await asyncio.to_thread(live.publish, ["core.pod@*"])
        await asyncio.to_thread(live.publish, ["jobs.job@default"])
        first = await _received(socket)
        second = await _received(socket, timeout=0.5)
        await socket.disconnect()
        return first, second

    first, second = asyncio.run(scenario())
    assert first == ["core.pod@*", "jobs.job@default"]
    assert second == []


def test_with_redis_committed_writes_publish_their_topics(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live, "tails_stream", lambda: False)  # as with the Redis layer
    layer = get_channel_layer()

    async def listen() -> str:
        channel: str = await layer.new_channel()
        await layer.group_add(live.GROUP, channel)
        return channel

    channel = asyncio.run(listen())
    with transaction.atomic():
        Job.objects.create(namespace="team-a", name="train")
        Queue.objects.create(name="research", weight=2)

    async def drain() -> set[str]:
        topics: set[str] = set()
        while True:
            try:
                message = await asyncio.wait_for(layer.receive(channel), timeout=0.2)
            except TimeoutError:
                return topics
            topics.update(message["topics"])

    assert {"jobs.job@team-a", "queues.queue@"} <= asyncio.run(drain())


def test_a_rolled_back_write_publishes_nothing_by_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live, "tails_stream", lambda: False)
    layer = get_channel_layer()

    async def listen() -> str:
        channel: str = await layer.new_channel()
        await layer.group_add(live.GROUP, channel)
        return channel

    channel = asyncio.run(listen())

    def refused_write() -> None:
        with transaction.atomic():
            Job.objects.create(namespace="team-a", name="train")
            raise RuntimeError("refused")

    with pytest.raises(RuntimeError):
        refused_write()

    async def nothing() -> bool:
        try:
            await asyncio.wait_for(layer.receive(channel), timeout=0.3)
        except TimeoutError:
            return True
        return False

    assert asyncio.run(nothing())


def test_without_redis_the_stream_is_tailed_for_other_processes_writes() -> None:
    start, _ = live.changes_since(0)
    Job.objects.create(namespace="team-a", name="train")  # as another process would
    Queue.objects.create(name="research", weight=2)
    newest, topics = live.changes_since(start)
    assert topics == {"jobs.job@team-a", "queues.queue@"}
    assert newest > start
    assert live.changes_since(newest) == (newest, set())


def test_without_redis_a_socket_hears_a_write_made_by_another_process(
    console_login: Callable[..., Any],
) -> None:
    olga = console_login("olga", "operator").user

    async def scenario() -> list[str]:
        socket = _communicator(olga)
        await socket.connect()
        await asyncio.sleep(live.TAIL_SECONDS * 2)  # the tail has read where the stream is
        await asyncio.to_thread(Job.objects.create, namespace="team-a", name="elsewhere")
        got = await _received(socket, timeout=2.0)
        await socket.disconnect()
        return got

    assert asyncio.run(scenario()) == ["jobs.job@team-a"]


def _drain(layer: Any, channel: str) -> set[str]:
    async def drain() -> set[str]:
        topics: set[str] = set()
        while True:
            try:
                message = await asyncio.wait_for(layer.receive(channel), timeout=0.2)
            except TimeoutError:
                return topics
            topics.update(message["topics"])

    return asyncio.run(drain())


def test_without_redis_an_audit_entry_and_a_session_still_reach_pages(
    console_login: Callable[..., Any],
) -> None:
    # The tail reads the change stream only: the writers announce what is not in it
    # (console.audit, scheduler.session), and leave the stream's own topics to the tail.
    olga = console_login("olga", "operator").user
    layer = get_channel_layer()

    async def listen() -> str:
        channel: str = await layer.new_channel()
        await layer.group_add(live.GROUP, channel)
        return channel

    channel = asyncio.run(listen())
    assert live.tails_stream()
    with acting_as(olga), transaction.atomic():
        Queue.objects.create(name="research", weight=2)  # audited: olga created it
    SessionRecord.objects.create(started_at=timezone.now(), e2e_ms=1.0)
    assert _drain(layer, channel) == {"console.audit", "scheduler.session"}


def test_a_foreign_origin_is_refused(console_login: Callable[..., Any]) -> None:
    from volcano_site.asgi import application

    async def scenario() -> bool:
        communicator = WebsocketCommunicator(
            application,
            "/ws/live/",
            headers=[(b"origin", b"http://evil.example"), (b"host", b"127.0.0.1")],
        )
        connected, _ = await communicator.connect()
        return bool(connected)

    assert not asyncio.run(scenario())
