"""Kubernetes ``Status`` objects: every refusal of the API, with its reason, code and causes.

Views raise ``KubeError`` (or one of DRF's exceptions, which the handler maps
onto the same shape), so a client always reads ``kind: Status`` with
``reason``/``code`` and, for invalid objects, ``details.causes[]`` whose
``field`` is the wire path (``spec.tasks[0].replicas``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response

__all__ = ["Cause", "KubeError", "exception_handler", "status_body", "success_status"]

REASONS = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    405: "MethodNotAllowed",
    406: "NotAcceptable",
    409: "Conflict",
    410: "Expired",
    415: "UnsupportedMediaType",
    422: "Invalid",
    429: "TooManyRequests",
    500: "InternalError",
}


@dataclass(frozen=True)
class Cause:
    """One problem with one field (``details.causes[]``)."""

    field: str
    message: str
    reason: str = "FieldValueInvalid"

    def as_dict(self) -> dict[str, str]:
        """Return the cause in Kubernetes' spelling."""
        return {"reason": self.reason, "message": self.message, "field": self.field}


@dataclass
class KubeError(Exception):
    """A refusal rendered as a ``Status`` with ``code`` (and ``reason`` unless the default)."""

    code: int
    message: str
    reason: str = ""
    kind: str = ""
    name: str = ""
    group: str = ""
    causes: list[Cause] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__(self.message)
        self.reason = self.reason or REASONS.get(self.code, "Unknown")

    def body(self) -> dict[str, Any]:
        """Return the ``Status`` object."""
        details: dict[str, Any] = {}
        if self.name:
            details["name"] = self.name
        if self.group:
            details["group"] = self.group
        if self.kind:
            details["kind"] = self.kind
        if self.causes:
            details["causes"] = [cause.as_dict() for cause in self.causes]
        return status_body(self.code, self.message, self.reason, details)

    def response(self) -> Response:
        """Return the error as a DRF response."""
        return Response(self.body(), status=self.code)


def status_body(code: int, message: str, reason: str, details: dict[str, Any]) -> dict[str, Any]:
    """Return a ``Status`` object (``Failure`` for codes of 400 and up)."""
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success" if code < 400 else "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }
    if details:
        body["details"] = details
    return body


def success_status(*, name: str, kind: str, group: str, uid: str) -> dict[str, Any]:
    """Return the ``Status`` a delete answers with."""
    details = {"name": name, "group": group, "kind": kind, "uid": uid}
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": details,
    }


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Render any exception a view raises as a ``Status`` (DRF's EXCEPTION_HANDLER hook)."""
    if isinstance(exc, KubeError):
        return exc.response()
    if isinstance(exc, ValidationError):  # a selector value the column cannot hold (a bad uid)
        return KubeError(400, "; ".join(exc.messages)).response()
    if isinstance(exc, Http404):
        return KubeError(404, "the server could not find the requested resource").response()
    if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
        response = KubeError(401, "Unauthorized: " + str(exc.detail)).response()
        response["WWW-Authenticate"] = 'Bearer realm="volcano"'
        return response
    if isinstance(exc, exceptions.APIException):
        detail = exc.detail
        message = detail if isinstance(detail, str) else str(exc.get_full_details())
        return KubeError(exc.status_code, str(message)).response()
    return None
