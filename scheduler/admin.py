"""Admin for the scheduler's rows: configuration versions and session records."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html

from kube.admin_kit import RecordAdmin
from scheduler.models import SchedulerConfiguration, SessionRecord
from scheduler.services import scheduler_conf_activate, scheduler_conf_create


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
        return ("version", "conf_text", "is_active", "author", "created_at")

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        """A stored version shows its text preformatted in place of the editable box."""
        fields = list(super().get_fields(request, obj))
        if obj is not None:
            fields = ["conf_text" if f == "text" else f for f in fields if f != "conf_text"]
        return fields

    @admin.display(description="text")
    def conf_text(self, obj: Any) -> str:
        """The conf text as stored, indentation kept (a readonly field would fold it)."""
        return format_html('<pre style="margin:0">{}</pre>', obj.text)

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
class SessionRecordAdmin(RecordAdmin):
    """Per-session figures, as the worker recorded them."""

    list_display = (
        "started_at", "e2e", "node_count", "job_count", "binds", "evictions", "worker",
    )  # fmt: skip
    list_filter = ("configuration", "worker")
    date_hierarchy = "started_at"

    @admin.display(description="e2e", ordering="e2e_ms")
    def e2e(self, record: SessionRecord) -> str:
        """Open → actions → close, in milliseconds with one decimal."""
        return f"{record.e2e_ms:.1f} ms"
