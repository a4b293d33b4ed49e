"""Who is acting: the user a write is made for, kept for the length of a request.

The API server's views open an ``acting_as`` block around each call and name its user once it
is authenticated (``set_actor``); the console's middleware does the same for pages and the
admin (``accounts.audit.AuditMiddleware``). Whoever records changes by a person (the audit log)
reads ``current_actor``. A write with nobody acting (the controllers, the worker) is nobody's.

The kernel keeps it so that its views need nothing of ``accounts`` to say who acts.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["acting_as", "current_actor", "set_actor"]

# A one-item list, so a block opened before authentication can name its user afterwards.
_ACTOR: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar(
    "audit_actor", default=None
)


def current_actor() -> Any | None:
    """Return the authenticated user acting in this context, if any."""
    holder = _ACTOR.get()
    user = holder[0] if holder else None
    return user if user is not None and getattr(user, "is_authenticated", False) else None


@contextmanager
def acting_as(user: Any) -> Iterator[None]:
    """Attribute the writes made inside the block to ``user`` (``set_actor`` may name it later)."""
    token = _ACTOR.set([user])
    try:
        yield
    finally:
        _ACTOR.reset(token)


def set_actor(user: Any) -> None:
    """Name the user of the innermost ``acting_as`` block (once the API has authenticated)."""
    holder = _ACTOR.get()
    if holder is not None:
        holder[0] = user
