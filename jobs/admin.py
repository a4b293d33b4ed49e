"""Admin for jobs and commands: tasks and pods inline, abort/resume via Commands."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from core.models import Pod
from jobs.admission.forms import TaskSpecAdmissionFormSet
from jobs.models import Command, CommandAction, Job, TaskSpec
from jobs.services import command_issue
from kube.admin_kit import META_FIELDS, age

JOB_STATUS_FIELDS = (
    "phase",
    "reason",
    "message",
    "last_transition_time",
    "pending",
    "running",
    "succeeded",
    "failed",
    "terminating",
    "unknown",
    "retry_count",
    "version",
    "status_min_available",
    "conditions",
    "task_status_count",
    "controlled_resources",
)


class TaskSpecInline(admin.TabularInline):  # type: ignore[type-arg]
    """A job's tasks, editable in place."""

    model = TaskSpec
    formset = TaskSpecAdmissionFormSet  # admits the job with its tasks (jobs.admission)
    extra = 0
    # No index to type: a task's index is its place in the list (admission numbers them).
    fields = ("name", "replicas", "min_available", "max_retry", "template")


class PodInline(admin.TabularInline):  # type: ignore[type-arg]
    """A job's pods, read-only: the controller and the scheduler own them."""

    model = Pod
    extra = 0
    fields = ("name", "task_name", "task_index", "node", "phase", "task_status", "exit_code")
    readonly_fields = fields
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Jobs with phase, queue, age and retries; abort and resume issue Commands."""

    list_display = (
        "name",
        "namespace",
        "queue",
        "phase",
        "min_available",
        "running",
        "pending",
        "retry_count",
        "age",
    )
    list_filter = ("phase", "queue", "namespace")
    search_fields = ("name", "namespace", "queue")
    readonly_fields = (*JOB_STATUS_FIELDS, *META_FIELDS)
    inlines = (TaskSpecInline, PodInline)
    actions = ("abort_jobs", "resume_jobs")

    @admin.display(description="age", ordering="created_at")
    def age(self, job: Job) -> str:
        return age(job.created_at)

    def _issue(self, request: HttpRequest, queryset: QuerySet[Any], action: CommandAction) -> None:
        for job in queryset:
            command_issue(job=job, action=action, issuer=request.user)
        self.message_user(request, f"{action} issued for {len(queryset)} job(s).")

    @admin.action(description="Abort the selected jobs (AbortJob command)")
    def abort_jobs(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        self._issue(request, queryset, CommandAction.ABORT_JOB)

    @admin.action(description="Resume the selected jobs (ResumeJob command)")
    def resume_jobs(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        self._issue(request, queryset, CommandAction.RESUME_JOB)


@admin.register(Command)
class CommandAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Commands issued to jobs and queues, and whether the controller has taken them."""

    list_display = ("name", "action", "target_kind", "target_name", "issuer", "processed", "age")
    list_filter = ("action", "target_kind", "processed")
    search_fields = ("name", "target_name")
    readonly_fields = ("processed", "processed_at", *META_FIELDS)

    @admin.display(description="age", ordering="created_at")
    def age(self, command: Command) -> str:
        return age(command.created_at)
