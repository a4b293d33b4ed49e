"""Admin for the v1 kinds nobody but the cluster writes by hand: priority classes and events.

Nodes and pods, with their fault actions, are the kubelet's (``kubelet/admin.py``); Secrets are
registered for admins only (``core/admin_secrets.py``).
"""

from __future__ import annotations

from django.contrib import admin

from core.admin_secrets import SecretAdmin  # noqa: F401  (registers Secrets, admins only)
from core.models import Event, PriorityClass
from kube.admin_kit import META_FIELDS


@admin.register(PriorityClass)
class PriorityClassAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Priority classes, highest first."""

    list_display = ("name", "value", "global_default", "preemption_policy")
    list_filter = ("global_default", "preemption_policy")
    search_fields = ("name", "description")
    readonly_fields = META_FIELDS


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Events, newest first, like ``kubectl get events``."""

    list_display = (
        "last_timestamp",
        "type",
        "reason",
        "involved_kind",
        "involved_name",
        "message",
        "count",
    )
    list_filter = ("type", "involved_kind", "reason")
    search_fields = ("involved_name", "reason", "message")
    date_hierarchy = "last_timestamp"
