"""The audit log: every change a person makes to queues, nodes, jobs and the scheduler configuration.

Which kinds are audited, and which of their fields, each kind says when its app registers it
(``Entry.audited_fields``: a queue's weight, capability, state...; a node's unschedulable and
taints). Their changes are written by model signal receivers, so the admin, the API and
anything else that saves those rows through the ORM all leave the same entries; configuration
versions are recorded by ``scheduler.services`` (they are switched with ``update()``, which
sends no signal). Who acted comes from ``kube.actor`` (named by the API views, and by the
middleware here for pages and the admin); a write with nobody acting (the controllers, the
worker) is not an operator's change and is not recorded.

Each entry is announced after commit as the free topic ``console.audit`` (the audit page and
the objects' histories refresh), through the change stream's commit hook.
"""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_delete, post_save, pre_save
from django.http import HttpRequest, HttpResponse

from accounts.models import AuditEntry
from apis.wire import format_resources
from kube import registry
from kube.actor import acting_as, current_actor
from kube.changes import announce_on_commit
from kube.registry import Entry

__all__ = ["TOPIC", "AuditMiddleware", "audit_name", "audit_record", "connect"]

TOPIC = "console.audit"


class AuditMiddleware:
    """Attribute writes made while serving a page (the admin, the console) to its user."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        with acting_as(getattr(request, "user", None)):
            response: HttpResponse = self.get_response(request)
        return response


def _audited(model: type[Any]) -> Entry | None:
    """Return the served kind of ``model`` when it audits fields (None: not audited)."""
    entry = registry.entry_for_model(model)
    return entry if entry is not None and entry.audited_fields else None


def snapshot(entry: Entry, instance: Any) -> dict[str, Any]:
    """Return the audited fields of ``instance`` as plain JSON (resource lists as quantities)."""
    values: dict[str, Any] = {}
    for name in entry.audited_fields:
        value = getattr(instance, name)
        values[name] = format_resources(value) if name in entry.audited_quantities else value
    return values


def audit_record(
    *, action: str, kind: str, name: str, before: Any = None, after: Any = None
) -> None:
    """Write one entry for the current actor (nothing when nobody is acting)."""
    actor = current_actor()
    if actor is None:
        return
    AuditEntry.objects.create(
        actor=actor,
        actor_name=actor.get_username(),
        action=action,
        kind=kind,
        name=name,
        before=before,
        after=after,
    )
    announce_on_commit(TOPIC)


def audit_name(instance: Any) -> str:
    """Return the name an entry records: ``namespace/name`` for a namespaced object."""
    namespace = getattr(instance, "namespace", "")
    return f"{namespace}/{instance.name}" if namespace else str(instance.name)


def _on_pre_save(sender: Any, instance: Any, raw: bool, **kwargs: Any) -> None:
    entry = _audited(sender)
    if raw or entry is None or current_actor() is None or instance._state.adding:
        instance._audit_before = None
        return
    stored = sender._default_manager.filter(pk=instance.pk).first()
    instance._audit_before = snapshot(entry, stored) if stored is not None else None


def _on_post_save(sender: Any, instance: Any, created: bool, raw: bool, **kwargs: Any) -> None:
    entry = _audited(sender)
    if raw or entry is None or current_actor() is None:
        return
    kind = entry.resource.kind
    after = snapshot(entry, instance)
    if created:
        audit_record(action="create", kind=kind, name=audit_name(instance), after=after)
        return
    before = getattr(instance, "_audit_before", None)
    if before is None or before == after:
        return
    changed = [key for key in after if before.get(key) != after[key]]
    audit_record(
        action="update",
        kind=kind,
        name=audit_name(instance),
        before={key: before.get(key) for key in changed},
        after={key: after[key] for key in changed},
    )


def _on_post_delete(sender: Any, instance: Any, **kwargs: Any) -> None:
    entry = _audited(sender)
    if entry is None:
        return
    before = snapshot(entry, instance)
    audit_record(
        action="delete", kind=entry.resource.kind, name=audit_name(instance), before=before
    )


def _connect_model(entry: Entry) -> None:
    if not entry.audited_fields:
        return
    model, uid = entry.model, entry.label
    pre_save.connect(_on_pre_save, sender=model, dispatch_uid=f"audit-pre-{uid}")
    post_save.connect(_on_post_save, sender=model, dispatch_uid=f"audit-post-{uid}")
    post_delete.connect(_on_post_delete, sender=model, dispatch_uid=f"audit-del-{uid}")


def connect() -> None:
    """Connect the receivers to every audited kind, now and as kinds are registered."""
    registry.add_kind_listener("accounts.audit", _connect_model)
