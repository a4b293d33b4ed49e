"""The console's live socket across processes: a write made by another process (as a Celery
worker on another host would) reaches an open page through the Redis channel layer."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from channels.layers import channel_layers
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import Group, User

from console.routing import websocket_urlpatterns
from tests.distributed.celery_kit import REPO, Stack

WRITE = "from jobs.models import Job; Job.objects.create(namespace='team-a', name='from-afar')"


@pytest.fixture
def redis_layer(stack: Stack, settings: Any) -> Iterator[None]:
    settings.CHANNEL_LAYERS = {"default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": [stack.redis_url]},
    }}  # fmt: skip
    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


def test_a_write_in_another_process_reaches_an_open_page(stack: Stack, redis_layer: None) -> None:
    user = User.objects.create_user("olga")
    user.groups.add(Group.objects.get_or_create(name="operator")[0])

    async def scenario() -> list[str]:
        socket = WebsocketCommunicator(URLRouter(websocket_urlpatterns), "/ws/live/")
        socket.scope["user"] = user
        connected, _ = await socket.connect()
        assert connected
        done = await asyncio.to_thread(
            subprocess.run, [sys.executable, "manage.py", "shell", "-c", WRITE], cwd=REPO,
            env=stack.env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        message = await socket.receive_json_from(timeout=10)
        await socket.disconnect()
        return list(message["topics"])

    assert "jobs.job@team-a" in asyncio.run(scenario())


def test_writes_from_a_worker_reuse_one_redis_connection_and_still_reach_an_open_page(
    stack: Stack, redis_layer: None
) -> None:
    # A Celery worker or the controllers' thread announces every commit from synchronous code;
    # each announcement used to open an event loop and a Redis connection of its own.
    import redis

    from console.live import publish

    user = User.objects.create_user("piotr")
    user.groups.add(Group.objects.get_or_create(name="operator")[0])
    client = redis.Redis.from_url(stack.redis_url)
    opened_before = client.info("stats")["total_connections_received"]

    wanted = {f"jobs.job@team-{i}" for i in range(40)}

    async def scenario() -> set[str]:
        socket = WebsocketCommunicator(URLRouter(websocket_urlpatterns), "/ws/live/")
        socket.scope["user"] = user
        connected, _ = await socket.connect()
        assert connected
        for topic in sorted(wanted):  # from a thread without an event loop, as a worker sends
            await asyncio.to_thread(publish, [topic])
        received: set[str] = set()
        while received < wanted:  # the page's socket coalesces what arrives close together
            received.update((await socket.receive_json_from(timeout=10))["topics"])
        await socket.disconnect()
        return received

    assert asyncio.run(scenario()) == wanted
    # the page's own socket and the one send loop; not one connection per announcement
    assert client.info("stats")["total_connections_received"] - opened_before < 10
