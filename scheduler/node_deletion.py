"""Deleting a node waits for any session binding to it, then unbinds its pods.

``Pod.node`` has no database constraint (``spec.nodeName`` is a plain reference, and the check
cost every bind). What keeps a deleted node from keeping pods is this lock order: a session's
apply locks each target node's row before it binds (``cache.apply``), and a node's deletion
locks the same row before Django unbinds its pods (``on_delete=SET_NULL``, run after the
``pre_delete`` signals). Whichever comes second waits: a deletion that waited then unbinds the
pods the session just bound; a session that waited finds the node gone and binds nothing to it.

(Today the change stream's commit-order lock, ``kube.changes``, also makes the two wait for
each other; this lock keeps the rule where it is needed rather than on how watches are built.)
"""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.db.models.signals import pre_delete

from scheduler.models import Node

__all__ = ["connect"]


def _lock_before_delete(sender: type[Node], instance: Node, **kwargs: Any) -> None:
    # The deletion's own transaction (Django's collector) holds the lock until it commits.
    # SQLite needs none: its one writer at a time already orders the two.
    if connection.vendor == "postgresql":
        list(Node.objects.select_for_update().filter(pk=instance.pk).values_list("pk"))


def connect() -> None:
    """Connect the lock to every deletion of a node (instance, queryset, admin, API)."""
    pre_delete.connect(_lock_before_delete, sender=Node, dispatch_uid="scheduler-node-lock")
