"""Admin for queues: weight, state and allocation; open/close in bulk; default undeletable."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from jobs.admission.forms import AdmissionModelForm
from queues.controller import ROOT, ROOT_NOT_CLOSED
from queues.models import PROTECTED_QUEUE_NAMES, Queue
from queues.services import queue_close, queue_open
from scheduler.forms import ResourceListField, format_resource_list


class QueueForm(AdmissionModelForm):
    """Queue form with the resource lists typed as quantities (admin supplies the Meta)."""

    capability = ResourceListField()
    deserved = ResourceListField()
    guarantee = ResourceListField()


@admin.register(Queue)
class QueueAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Queues with the columns an operator watches."""

    form = QueueForm
    list_display = (
        "name",
        "state",
        "weight",
        "reclaimable",
        "allocated_display",
        "capability_display",
        "pending",
        "inqueue",
        "running",
        "parent",
    )
    list_filter = ("state", "reclaimable")
    search_fields = ("name", "parent")
    readonly_fields = (
        "state",
        "pending",
        "inqueue",
        "running",
        "completed",
        "unknown",
        "allocated_display",
        "uid",
        "resource_version",
        "created_at",
    )
    exclude = ("allocated",)
    actions = ("open_queues", "close_queues")

    @admin.display(description="allocated")
    def allocated_display(self, queue: Queue) -> str:
        return format_resource_list(queue.allocated)

    @admin.display(description="capability")
    def capability_display(self, queue: Queue) -> str:
        return format_resource_list(queue.capability) or "unlimited"

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is not None and (obj.is_protected or Queue.objects.filter(parent=obj.name).exists()):
            return False  # Volcano refuses to delete default, root and queues with children
        return super().has_delete_permission(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        protected = queryset.filter(name__in=PROTECTED_QUEUE_NAMES)
        if protected.exists():
            names = ", ".join(protected.values_list("name", flat=True))
            self.message_user(request, f"Queue {names} can not be deleted.", messages.ERROR)
            queryset = queryset.exclude(name__in=PROTECTED_QUEUE_NAMES)
        super().delete_queryset(request, queryset)

    @admin.action(description="Open the selected queues")
    def open_queues(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        for queue in queryset:
            queue_open(queue=queue)
        self.message_user(request, f"Opened {len(queryset)} queue(s).")

    @admin.action(description="Close the selected queues")
    def close_queues(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        states = [queue_close(queue=queue).state for queue in queryset.exclude(name=ROOT)]
        self.message_user(request, f"Closing or closed: {len(states)} queue(s).")
        if queryset.filter(name=ROOT).exists():
            self.message_user(request, ROOT_NOT_CLOSED, level=messages.ERROR)
