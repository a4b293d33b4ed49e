"""The REST API's URL map: every app's Kubernetes paths, the audit log, the OpenAPI schema.

Unknown paths under ``/api`` and ``/apis`` answer a 404 ``Status`` (what
Kubernetes clients parse), not Django's HTML page.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, JsonResponse
from django.urls import URLPattern, URLResolver, include, path, re_path
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.views import SpectacularSwaggerView

from accounts.api.views import AuditEntryListView
from kube.schema_view import SchemaView
from kube.status import KubeError


@csrf_exempt  # it writes nothing, and a client must read 404, not a CSRF refusal
def not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    """Answer an unknown API path with a 404 ``Status``."""
    error = KubeError(404, "the server could not find the requested resource")
    return JsonResponse(error.body(), status=404)


urlpatterns: list[URLPattern | URLResolver] = [
    path("", include("kubelet.api.urls")),
    path("", include("core.api.urls")),
    path("", include("jobs.api.urls")),
    path("", include("training.api.urls")),
    path("", include("flow.api.urls")),
    path("", include("queues.api.urls")),
    path("", include("topology.api.urls")),
    path("", include("scheduler.api.urls")),
    path(
        "apis/audit.volcano.sh/v1alpha1/auditentries",
        AuditEntryListView.as_view(),
        name="auditentries-list",
    ),
    path("api/schema/", SchemaView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    # Version, discovery and OpenAPI documents, as kubectl and client libraries read them.
    path("", include("kube.urls")),
    re_path(r"^apis?(/.*)?$", not_found),
]
