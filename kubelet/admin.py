"""Admin for nodes and pods, with the fault actions the simulated kubelet offers.

Take a node down or up, cordon it, fail or evict a pod: the same services the API and
``manage.py fault`` use (``kubelet/faults.py``), so every path leaves the same events and audit.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest

from core.models import Node, Pod
from kube import registry
from kube.admin_kit import META_FIELDS
from kube.forms import ResourceListField, format_resource_list
from kubelet.faults import node_cordon, node_down, node_up, pod_evict, pod_fail


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

    # Fault injection (kubelet/faults.py): the same services the API and `manage.py fault` use.
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

    # Fault injection (kubelet/faults.py), as the simulated kubelet and the scheduler do it.
    @admin.action(description="Fail (exit code 1)")
    def fail_pods(self, request: HttpRequest, queryset: QuerySet[Pod]) -> None:
        done = sum(pod_fail(pod=pod) for pod in queryset)
        self.message_user(request, f"{done} pod(s) failed.")

    @admin.action(description="Evict")
    def evict_pods(self, request: HttpRequest, queryset: QuerySet[Pod]) -> None:
        done = sum(pod_evict(pod=pod) for pod in queryset)
        self.message_user(request, f"{done} pod(s) evicted.")

    # Deleting a job's pod here is an eviction, as through the API: the pod's eviction hooks
    # hear of it in the deleting transaction (kube.registry; the jobs app's: jobs.evictions).
    def delete_model(self, request: HttpRequest, obj: Pod) -> None:
        with transaction.atomic():
            registry.evicted(obj)
            super().delete_model(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Pod]) -> None:
        with transaction.atomic():
            for pod in queryset:
                registry.evicted(pod)
            super().delete_queryset(request, queryset)
