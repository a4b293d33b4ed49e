"""The audit log on the API: ``/apis/audit.volcano.sh/v1alpha1/auditentries`` (operators read it)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.api.serializers import AuditEntryListSerializer
from accounts.models import AuditEntry
from apis.wire import format_time
from kube.routes import ERRORS
from kube.status import KubeError
from kube.views import KubeAPIView

__all__ = ["AuditEntryListView", "render_entry"]

API_VERSION = "audit.volcano.sh/v1alpha1"


def render_entry(entry: AuditEntry) -> dict[str, Any]:
    """Return one entry as the API shows it."""
    return {
        "id": entry.id,
        "time": format_time(entry.created_at),
        "user": entry.actor_name,
        "action": entry.action,
        "kind": entry.kind,
        "name": entry.name,
        "before": entry.before,
        "after": entry.after,
    }


class AuditEntryListView(KubeAPIView):
    """List audit entries, newest first, filtered by kind and name."""

    access_name = "auditentries"

    @extend_schema(
        operation_id="listAuditEntry",
        summary="List audit entries (operators)",
        parameters=[
            OpenApiParameter("kind", str, description="Queue, Node or SchedulerConfiguration"),
            OpenApiParameter("name", str),
            OpenApiParameter("limit", int),
            OpenApiParameter("continue", str, description="The id to continue below"),
        ],
        responses={200: AuditEntryListSerializer, **ERRORS},
        tags=["auditentries.audit.volcano.sh"],
    )
    def get(self, request: Request) -> Response:
        entries = AuditEntry.objects.order_by("-id")
        for field in ("kind", "name"):
            if value := request.query_params.get(field):
                entries = entries.filter(**{field: value})
        limit_text = request.query_params.get("limit") or "100"
        cont = request.query_params.get("continue") or ""
        if not limit_text.isdigit() or (cont and not cont.isdigit()):
            raise KubeError(400, "limit and continue must be non-negative integers")
        limit = min(max(int(limit_text), 1), 500)
        if cont:
            entries = entries.filter(id__lt=int(cont))
        page = list(entries[: limit + 1])
        meta: dict[str, Any] = {}
        if len(page) > limit:
            page = page[:limit]
            meta["continue"] = str(page[-1].id)
        return Response(
            {
                "apiVersion": API_VERSION,
                "kind": "AuditEntryList",
                "metadata": meta,
                "items": [render_entry(entry) for entry in page],
            }
        )
