"""Admin for the scheduler's rows: nodes, configuration versions, session records."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from scheduler.forms import ResourceListField, format_resource_list
from scheduler.models import Node, SchedulerConfiguration, SessionRecord
from scheduler.services import (
    node_cordon,
    node_down,
    node_up,
    scheduler_conf_activate,
    scheduler_conf_create,
)


class NodeForm(forms.ModelForm):  # type: ignore[type-arg]
    """Node form with capacity and allocatable as quantities (admin supplies the Meta)."""

    capacity = ResourceListField()
    allocatable = ResourceListField()


@admin.register(Node)
class NodeAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Nodes: readiness, schedulability and size at a glance."""

    form = NodeForm
    list_display = ("name", "ready", "unschedulable", "allocatable_display", "created_at")
    list_filter = ("ready", "unschedulable")
    search_fields = ("name",)
    readonly_fields = ("uid", "resource_version", "created_at", "ready_transition_time")
    actions = ("take_down", "bring_up", "cordon", "uncordon")

    @admin.display(description="allocatable")
    def allocatable_display(self, node: Node) -> str:
        return format_resource_list(node.allocatable)

    # Fault injection (scheduler/faults.py): the same services the API and `manage.py fault` use.
    @admin.action(description="Take down (NotReady): fail its pods")
    def take_down(self, request: HttpRequest, queryset: QuerySet[Node]) -> None:
        failed = sum(node_down(node=node) for node in queryset)
        self.message_user(request, f"{queryset.count()} node(s) down, {failed} pod(s) failed.")

    @admin.action(description="Bring up (Ready)")
    def bring_up(self, request: HttpRequest, queryset: QuerySet[Node]) -> None:
        for node in queryset:
            node_up(node=node)
        self.message_user(request, f"{queryset.count()} node(s) Ready.")

    @admin.action(description="Cordon (no new pods)")
    def cordon(self, request: HttpRequest, queryset: QuerySet[Node]) -> None:
        for node in queryset:
            node_cordon(node=node)
        self.message_user(request, f"{queryset.count()} node(s) cordoned.")

    @admin.action(description="Uncordon")
    def uncordon(self, request: HttpRequest, queryset: QuerySet[Node]) -> None:
        for node in queryset:
            node_cordon(node=node, unschedulable=False)
        self.message_user(request, f"{queryset.count()} node(s) uncordoned.")


class SchedulerConfigurationForm(forms.ModelForm):  # type: ignore[type-arg]
    """The conf text in a monospace box, kept byte for byte (no stripping)."""

    text = forms.CharField(
        strip=False,
        widget=forms.Textarea(attrs={"rows": 24, "cols": 90, "style": "font-family: monospace"}),
        help_text="volcano-scheduler.conf: actions and tiers (YAML)",
    )


@admin.register(SchedulerConfiguration)
class SchedulerConfigurationAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Configuration versions; activating one deactivates the others in one transaction."""

    form = SchedulerConfigurationForm
    list_display = ("version", "is_active", "comment", "author", "created_at")
    list_filter = ("is_active",)
    search_fields = ("comment", "text")
    actions = ("activate",)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        # A version is history: once stored its text never changes (a change is a new version).
        if obj is None:
            return ("version", "is_active", "author", "created_at")
        return ("version", "text", "is_active", "author", "created_at")

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        created = scheduler_conf_create(text=obj.text, author=request.user, comment=obj.comment)
        obj.pk, obj.version = created.pk, created.version

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is not None and obj.is_active:
            return False
        return super().has_delete_permission(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        if queryset.filter(is_active=True).exists():
            self.message_user(
                request, "The active configuration cannot be deleted.", messages.ERROR
            )
            queryset = queryset.filter(is_active=False)
        super().delete_queryset(request, queryset)

    @admin.action(description="Activate the selected configuration")
    def activate(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        if queryset.count() != 1:
            self.message_user(request, "Select exactly one configuration.", messages.ERROR)
            return
        configuration = queryset.get()
        scheduler_conf_activate(configuration=configuration)
        self.message_user(request, f"Configuration v{configuration.version} is now active.")


@admin.register(SessionRecord)
class SessionRecordAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Per-session figures, as the worker recorded them."""

    list_display = ("started_at", "e2e_ms", "node_count", "job_count", "binds", "evictions")
    list_filter = ("configuration",)
    date_hierarchy = "started_at"
