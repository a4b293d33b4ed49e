"""Answers Django itself gives before or after a view runs, as ``Status`` objects under the API.

A Kubernetes client parses every answer under ``/api`` and ``/apis`` as a ``Status`` or an
object; Django's HTML pages (a CSRF refusal of a POST to a path no view serves, a server
error) print as garbage in kubectl. Elsewhere (the console) Django's own pages stay.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import csrf, defaults

from kube.status import KubeError

__all__ = ["csrf_failure", "is_api_path", "server_error"]


def is_api_path(path: str) -> bool:
    """Return whether ``path`` belongs to the Kubernetes-style API."""
    return path in ("/api", "/apis") or path.startswith(("/api/", "/apis/"))


def _status(error: KubeError) -> JsonResponse:
    return JsonResponse(error.body(), status=error.code)


def csrf_failure(request: HttpRequest, reason: str = "", **kwargs: Any) -> HttpResponse:
    """``CSRF_FAILURE_VIEW``: a 403 ``Status`` under the API, Django's page elsewhere."""
    if is_api_path(request.path):
        return _status(KubeError(
            403, "a session-authenticated write needs a CSRF token; API clients send "
            "Authorization: Bearer <token>"))  # fmt: skip
    return csrf.csrf_failure(request, reason=reason)


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: a 500 ``Status`` under the API, Django's page elsewhere."""
    if is_api_path(request.path):
        return _status(KubeError(500, "an internal error occurred; the server logged it"))
    return defaults.server_error(request)
