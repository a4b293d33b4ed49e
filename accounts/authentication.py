"""API tokens: ``Authorization: Bearer <token>`` (what kubectl sends) or ``Token <token>``."""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import Any

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from accounts.models import ApiToken

__all__ = ["TokenAuthentication", "TokenAuthenticationScheme", "token_digest"]

# Writing last_used_at on every call would make every read a write; once a minute is enough.
_TOUCH_EVERY = dt.timedelta(minutes=1)


def token_digest(token: str) -> str:
    """Return the stored form of ``token`` (hex SHA-256)."""
    return hashlib.sha256(token.encode()).hexdigest()


class TokenAuthentication(BaseAuthentication):
    """Authenticate by an API token; a revoked or unknown token is 401."""

    keywords = ("bearer", "token")

    def authenticate(self, request: Request) -> tuple[Any, ApiToken] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].decode(errors="replace").lower() not in self.keywords:
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("invalid token header")
        token = parts[1].decode(errors="replace")
        found = ApiToken.objects.select_related("user").filter(digest=token_digest(token)).first()
        if found is None or not found.is_active or not found.user.is_active:
            raise exceptions.AuthenticationFailed("invalid or revoked token")
        now = timezone.now()
        if found.last_used_at is None or now - found.last_used_at > _TOUCH_EVERY:
            ApiToken.objects.filter(pk=found.pk).update(last_used_at=now)
        return found.user, found

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="volcano"'


class TokenAuthenticationScheme(OpenApiAuthenticationExtension):
    """Describe the token as an HTTP bearer scheme in the OpenAPI schema."""

    target_class = "accounts.authentication.TokenAuthentication"
    name = "bearerToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        """Return the scheme: ``Authorization: Bearer <token>`` (``Token <token>`` works too)."""
        return {"type": "http", "scheme": "bearer"}
