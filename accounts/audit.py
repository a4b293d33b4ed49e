"""The audit log: every change a person makes to queues, nodes and the scheduler configuration.

Queue and node changes are written by model signal receivers, so the admin,
the API and anything else that saves those rows through the ORM all leave the
same entries; configuration versions are recorded by ``scheduler.services``
(they are switched with ``update()``, which sends no signal). Who
acted comes from ``acting_as`` (set by the API views and by the middleware for
pages and the admin); a write with nobody acting (the controllers, the worker)
is not an operator's change and is not recorded.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db.models.signals import post_delete, post_save, pre_save
from django.http import HttpRequest, HttpResponse

from apis.wire import format_resources

__all__ = [
    "AuditMiddleware",
    "acting_as",
    "audit_record",
    "connect",
    "current_actor",
    "set_actor",
]

# A one-item list, so a block opened before authentication can name its user afterwards.
_ACTOR: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar(
    "audit_actor", default=None
)

# Model label → the fields whose changes are recorded (resource lists shown as quantities).
AUDITED = {
    "queues.queue": (
        "weight",
        "capability",
        "deserved",
        "guarantee",
        "state",
        "reclaimable",
        "parent",
        "priority",
    ),
    "core.node": ("unschedulable", "taints"),
}
_RESOURCE_FIELDS = ("capability", "deserved", "guarantee")
_KINDS = {"queues.queue": "Queue", "core.node": "Node"}


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


class AuditMiddleware:
    """Attribute writes made while serving a page (the admin, the console) to its user."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        with acting_as(getattr(request, "user", None)):
            response: HttpResponse = self.get_response(request)
        return response


def snapshot(instance: Any) -> dict[str, Any]:
    """Return the audited fields of ``instance`` as plain JSON."""
    values: dict[str, Any] = {}
    for name in AUDITED[instance._meta.label_lower]:
        value = getattr(instance, name)
        values[name] = format_resources(value) if name in _RESOURCE_FIELDS else value
    return values


def audit_record(
    *, action: str, kind: str, name: str, before: Any = None, after: Any = None
) -> None:
    """Write one entry for the current actor (nothing when nobody is acting)."""
    from accounts.models import AuditEntry

    actor = current_actor()
    if actor is None:
        return
    from console.live import publish_on_commit

    AuditEntry.objects.create(
        actor=actor,
        actor_name=actor.get_username(),
        action=action,
        kind=kind,
        name=name,
        before=before,
        after=after,
    )
    publish_on_commit("console.audit")  # the audit page and the objects' histories refresh


def _on_pre_save(sender: Any, instance: Any, raw: bool, **kwargs: Any) -> None:
    if raw or current_actor() is None or instance._state.adding:
        instance._audit_before = None
        return
    stored = sender._default_manager.filter(pk=instance.pk).first()
    instance._audit_before = snapshot(stored) if stored is not None else None


def _on_post_save(sender: Any, instance: Any, created: bool, raw: bool, **kwargs: Any) -> None:
    if raw or current_actor() is None:
        return
    label = sender._meta.label_lower
    after = snapshot(instance)
    if created:
        audit_record(action="create", kind=_KINDS[label], name=instance.name, after=after)
        return
    before = getattr(instance, "_audit_before", None)
    if before is None or before == after:
        return
    changed = [key for key in after if before.get(key) != after[key]]
    audit_record(
        action="update",
        kind=_KINDS[label],
        name=instance.name,
        before={key: before.get(key) for key in changed},
        after={key: after[key] for key in changed},
    )


def _on_post_delete(sender: Any, instance: Any, **kwargs: Any) -> None:
    label = sender._meta.label_lower
    audit_record(action="delete", kind=_KINDS[label], name=instance.name, before=snapshot(instance))


def connect() -> None:
    """Connect the receivers for every audited model."""
    from core.models import Node
    from queues.models import Queue

    for model in (Queue, Node):
        uid = model._meta.label_lower
        pre_save.connect(_on_pre_save, sender=model, dispatch_uid=f"audit-pre-{uid}")
        post_save.connect(_on_post_save, sender=model, dispatch_uid=f"audit-post-{uid}")
        post_delete.connect(_on_post_delete, sender=model, dispatch_uid=f"audit-del-{uid}")
