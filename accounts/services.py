"""Writes to accounts (HackSoft style): issue and revoke API tokens."""

from __future__ import annotations

import secrets
from typing import Any

from django.utils import timezone

from accounts.authentication import token_digest
from accounts.models import ApiToken

__all__ = ["token_create", "token_revoke"]

TOKEN_PREFIX = "vct_"


def token_create(*, user: Any, name: str) -> tuple[ApiToken, str]:
    """Issue a token for ``user``; return the row and the token, which is shown only once."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = ApiToken.objects.create(
        user=user, name=name, digest=token_digest(token), prefix=token[:12]
    )
    return row, token


def token_revoke(*, token: ApiToken) -> ApiToken:
    """Revoke ``token`` (kept for the record, no longer accepted)."""
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token
