"""The view of drf-spectacular's schema (``/api/schema/``), authenticated as the API is.

Its own module: drf-spectacular reads ``kube.openapi.DocsAccess`` while its views module loads,
so a view subclassing drf-spectacular's cannot sit in ``kube.openapi``.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.views import SpectacularAPIView
from rest_framework.authentication import BaseAuthentication

from kube import registry
from kube.status import exception_handler

__all__ = ["SchemaView"]


class SchemaView(SpectacularAPIView):
    """``GET /api/schema/``: drf-spectacular's document, authenticated as the API is.

    drf-spectacular's view takes DRF's default authenticators, the first of which (session)
    has no ``WWW-Authenticate`` challenge, so DRF answered a missing or bad credential with
    403. Here the access control's authenticators (token first) answer it 401 with the
    challenge, as a ``Status`` like every other API path.
    """

    def get_authenticators(self) -> list[BaseAuthentication]:
        """Return the access control's authenticators (token, then session)."""
        control = registry.access_control()
        classes = control.authentication_classes if control is not None else ()
        return [authentication() for authentication in classes]

    def get_exception_handler(self) -> Any:
        return exception_handler
