"""Admin for jobs and their objects: tasks and pods inline, abort/resume via Commands."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.timesince import timesince

from jobs.admin_secrets import SecretAdmin  # noqa: F401  (registers Secrets, admins only)
from jobs.admission.forms import AdmissionModelForm, TaskSpecAdmissionFormSet
from jobs.evictions import note_pod_deleted
from jobs.models import (
    Command,
    CommandAction,
    Event,
    Job,
    Pod,
    PodGroup,
    PriorityClass,
    TaskSpec,
)
from jobs.services import command_issue
from scheduler.forms import ResourceListField, format_resource_list
from scheduler.services import pod_evict, pod_fail

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
META_FIELDS = ("uid", "resource_version", "created_at")


def age(created_at: Any) -> str:
    """Return kubectl's AGE column for a creation time."""
    if created_at is None:
        return ""
    return timesince(created_at, timezone.now(), depth=1)


class TaskSpecInline(admin.TabularInline):  # type: ignore[type-arg]
    """A job's tasks, editable in place."""

    model = TaskSpec
    formset = TaskSpecAdmissionFormSet  # admits the job with its tasks (jobs.admission)
    extra = 0
    fields = ("index", "name", "replicas", "min_available", "max_retry", "template")


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


class PodGroupForm(AdmissionModelForm):
    """PodGroup form with minResources typed as quantities (admin supplies the Meta)."""

    min_resources = ResourceListField()


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


@admin.register(Pod)
class PodAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Pods with node and phase, the columns of ``kubectl get pods -o wide``."""

    list_display = ("name", "namespace", "job", "node", "phase", "task_status", "requests_display")
    list_filter = ("phase", "task_status", "namespace")
    search_fields = ("name", "namespace", "job__name", "node__name")
    list_select_related = ("job", "node")
    raw_id_fields = ("job", "pod_group", "node")
    readonly_fields = (
        "phase",
        "task_status",
        "reason",
        "message",
        "exit_code",
        "start_time",
        "finish_time",
        "requests",
        "cpu_milli",
        "memory_milli",
        "gpu_milli",
        *META_FIELDS,
    )
    actions = ("fail_pods", "evict_pods")

    @admin.display(description="requests")
    def requests_display(self, pod: Pod) -> str:
        return format_resource_list(pod.requests)

    # Fault injection (scheduler/faults.py), as the simulated kubelet and the scheduler do it.
    @admin.action(description="Fail (exit code 1)")
    def fail_pods(self, request: HttpRequest, queryset: QuerySet[Pod]) -> None:
        done = sum(pod_fail(pod=pod) for pod in queryset)
        self.message_user(request, f"{done} pod(s) failed.")

    @admin.action(description="Evict")
    def evict_pods(self, request: HttpRequest, queryset: QuerySet[Pod]) -> None:
        done = sum(pod_evict(pod=pod) for pod in queryset)
        self.message_user(request, f"{done} pod(s) evicted.")

    # Deleting a job's pod here is an eviction, as through the API (jobs.evictions).
    def delete_model(self, request: HttpRequest, obj: Pod) -> None:
        with transaction.atomic():
            note_pod_deleted(obj)
            super().delete_model(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Pod]) -> None:
        with transaction.atomic():
            for pod in queryset:
                note_pod_deleted(pod)
            super().delete_queryset(request, queryset)


@admin.register(PriorityClass)
class PriorityClassAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Priority classes, highest first."""

    list_display = ("name", "value", "global_default", "preemption_policy")
    list_filter = ("global_default", "preemption_policy")
    search_fields = ("name", "description")
    readonly_fields = META_FIELDS


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
