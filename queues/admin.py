"""Admin for queues: weight, state and allocation; open/close in bulk; default undeletable."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from kube.admin_kit import META_FIELDS, age
from kube.admission_forms import AdmissionModelForm
from kube.forms import ResourceListField, format_resource_list
from queues.admission import admit_pod_group, admit_queue
from queues.controller import ROOT, ROOT_NOT_CLOSED
from queues.models import PROTECTED_QUEUE_NAMES, PodGroup, Queue
from queues.services import queue_close, queue_open


class QueueForm(AdmissionModelForm):
    """Queue form with the resource lists typed as quantities (admin supplies the Meta)."""

    capability = ResourceListField()
    deserved = ResourceListField()
    guarantee = ResourceListField()

    def admit(self, instance: Any, old: Any) -> None:
        admit_queue(instance, old=old)


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


class PodGroupForm(AdmissionModelForm):
    """PodGroup form with minResources typed as quantities (admin supplies the Meta)."""

    min_resources = ResourceListField()

    def admit(self, instance: Any, old: Any) -> None:
        admit_pod_group(instance, old=old)


@admin.register(PodGroup)
class PodGroupAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Gangs: phase, size and queue."""

    form = PodGroupForm
    list_display = ("name", "namespace", "queue", "phase", "min_member", "running", "age")
    list_filter = ("phase", "queue", "namespace")
    search_fields = ("name", "namespace", "job__name")
    readonly_fields = ("phase", "conditions", "running", "succeeded", "failed", *META_FIELDS)
    raw_id_fields = ("job",)

    @admin.display(description="age", ordering="created_at")
    def age(self, group: PodGroup) -> str:
        return age(group.created_at)
