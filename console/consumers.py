"""The one websocket of the console: ``ws/live/`` forwards change topics to a signed-in page.

The consumer knows the user's roles and namespace grants from the handshake and forwards
only topics of namespaces the user may read (a topic names a namespace, so even that is not
shown to a user without the grant). Cluster-scoped topics (``queues.queue@``) and topics of
unknown namespaces (``@*``, a set-based write) go to everyone with a role: they carry no
data, and the refresh they cause is an ordinary authorised request.

Topics are coalesced for ``COALESCE_SECONDS`` so a busy cluster costs a page at most a few
messages a second, each naming every topic that changed meanwhile.
"""

from __future__ import annotations

import asyncio
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from accounts.roles import allowed_namespaces, roles_of
from console.live import GROUP, ensure_tail

__all__ = ["CLOSE_FORBIDDEN", "CLOSE_UNAUTHENTICATED", "COALESCE_SECONDS", "LiveConsumer"]

COALESCE_SECONDS = 0.25
CLOSE_UNAUTHENTICATED = 4401  # the page sends the user to sign in, and does not retry
CLOSE_FORBIDDEN = 4403
# Kinds the console never shows: not even their topics travel.
_HIDDEN_KINDS = frozenset({"core.secret"})


def _grants(user: Any) -> tuple[frozenset[str], frozenset[str] | None]:
    return roles_of(user), allowed_namespaces(user)


class LiveConsumer(AsyncJsonWebsocketConsumer):
    """Forward the change topics a signed-in user may see, coalesced."""

    namespaces: frozenset[str] | None
    pending: set[str]
    flush: asyncio.Task[None] | None

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        roles, namespaces = await database_sync_to_async(_grants)(user)
        if not roles:
            await self.close(code=CLOSE_FORBIDDEN)
            return
        self.namespaces = namespaces
        self.pending = set()
        self.flush = None
        await self.channel_layer.group_add(GROUP, self.channel_name)
        ensure_tail()  # without Redis, this process reads what other processes wrote
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if getattr(self, "flush", None) is not None and self.flush is not None:
            self.flush.cancel()
        await self.channel_layer.group_discard(GROUP, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        """The page sends nothing; anything it sends is ignored."""

    def visible(self, topic: str) -> bool:
        """Return whether this user may learn that ``topic`` changed."""
        kind, _, namespace = topic.partition("@")
        if kind in _HIDDEN_KINDS:
            return False
        if namespace in ("", "*") or self.namespaces is None:
            return True
        return namespace in self.namespaces

    async def live_changes(self, message: dict[str, Any]) -> None:
        """Group message from ``live.publish``: queue the visible topics for the next flush."""
        self.pending.update(t for t in message.get("topics", ()) if self.visible(str(t)))
        if self.pending and self.flush is None:
            self.flush = asyncio.ensure_future(self._flush_later())

    async def _flush_later(self) -> None:
        await asyncio.sleep(COALESCE_SECONDS)
        topics, self.pending, self.flush = sorted(self.pending), set(), None
        if topics:
            await self.send_json({"topics": topics})
