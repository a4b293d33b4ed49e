"""A pod's ``/log``: what the simulated kubelet recorded about it, as text.

The simulated runtime runs no containers, so the log is what it recorded about
the pod: its events (scheduled, started, killed, ...) in time order, its
phase, and how its container ended. ``kubectl logs`` prints it as it comes.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request

from apis.wire import format_time
from core.api.resources import PODS
from core.models import Event, Pod
from kube.routes import ERRORS
from kube.views import ResourceView

__all__ = ["PodLogView", "pod_log_text"]


def pod_log_text(pod: Pod) -> str:
    """Return the log of ``pod``: one line per recorded event, then how it ended."""
    events = Event.objects.filter(
        Q(involved_uid=pod.uid) | Q(involved_uid__isnull=True, involved_name=pod.name),
        involved_kind="Pod",
        involved_namespace=pod.namespace,
    ).order_by("first_timestamp", "pk")
    lines = []
    for event in events:
        repeated = f" (x{event.count})" if event.count > 1 else ""
        lines.append(
            f"{format_time(event.first_timestamp)} {event.type} {event.reason}: "
            f"{event.message}{repeated}".rstrip()
        )
    node = pod.node_name
    if pod.start_time is not None:
        where = f" on node {node}" if node else ""
        lines.append(f"{format_time(pod.start_time)} started{where}")
    elif node:
        lines.append(f"bound to node {node}; not started yet")
    if pod.finish_time is not None or pod.exit_code is not None:
        when = format_time(pod.finish_time) if pod.finish_time is not None else "-"
        lines.append(f"{when} container exited with code {pod.exit_code}")
    reason = f" ({pod.reason})" if pod.reason else ""
    message = f": {pod.message}" if pod.message else ""
    lines.append(f"phase {pod.phase}{reason}{message}")
    return "\n".join(lines) + "\n"


class PodLogView(ResourceView):
    """``GET /api/v1/namespaces/{namespace}/pods/{name}/log`` as text."""

    resource = PODS
    subresource = "log"
    http_method_names = ["get", "options"]  # noqa: RUF012

    @extend_schema(
        operation_id="readNamespacedPodLog",
        summary="Read a Pod's log (what the simulated runtime recorded)",
        responses={200: OpenApiResponse(OpenApiTypes.STR), **ERRORS},
        tags=["pods"],
    )
    def get(self, request: Request, **kwargs: Any) -> HttpResponse:
        return HttpResponse(pod_log_text(self.get_object()), content_type="text/plain")
