"""A missing or bad credential is 401 with a challenge on every API path, the schema included.

kube-apiserver answers an unauthenticated request 401 ``Unauthorized`` (a ``Status``) and
never 403: 403 means "you, known, may not". Each credential a client may get wrong is tried
on each kind of path: a resource list, discovery, OpenAPI and drf-spectacular's schema.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from django.test import Client

from accounts.models import ApiToken
from accounts.services import token_create

PATHS = [
    "/api/schema/",
    "/api/schema/?format=json",
    "/api/v1/namespaces/default/pods",
    "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs",
    "/apis/scheduling.volcano.sh/v1beta1/queues",
    "/apis",
    "/openapi/v2",
]


def _credentials(user: Any) -> dict[str, dict[str, str]]:
    """Return each wrong credential as the request headers that carry it."""
    _, good = token_create(user=user, name="good")
    _, revoked = token_create(user=user, name="revoked")
    ApiToken.objects.filter(name="revoked").update(revoked_at="2026-01-01T00:00:00Z")
    off = good[:-1] + ("a" if good[-1] != "a" else "b")
    basic = base64.b64encode(b"olga:pw-olga").decode()
    return {
        "none": {},
        "empty bearer": {"authorization": "Bearer "},
        "unknown bearer": {"authorization": "Bearer not-a-token"},
        "one byte off": {"authorization": f"Bearer {off}"},
        "basic auth": {"authorization": f"Basic {basic}"},
        "revoked token": {"authorization": f"Bearer {revoked}"},
        "forged session": {"cookie": "sessionid=0123456789abcdefghijklmnopqrstuv"},
    }


CASES = [
    "none", "empty bearer", "unknown bearer", "one byte off", "basic auth", "revoked token",
    "forged session",
]  # fmt: skip


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("case", CASES)
def test_a_bad_credential_is_401_with_a_challenge(
    make_user: Callable[..., Any], path: str, case: str
) -> None:
    headers = _credentials(make_user("olga", "operator"))[case]

    response = Client(headers=headers).get(path)

    assert response.status_code == 401, (case, path, response.content[:200])
    assert response["WWW-Authenticate"].startswith("Bearer")
    body = yaml.safe_load(response.content)  # the schema's default rendering is YAML
    assert (body["kind"], body["reason"], body["code"]) == ("Status", "Unauthorized", 401)


def test_the_same_token_right_is_served(make_user: Callable[..., Any]) -> None:
    _, token = token_create(user=make_user("olga", "operator"), name="good")

    response = Client(headers={"authorization": f"Bearer {token}"}).get("/api/schema/")

    assert response.status_code == 200
    assert b"openapi" in response.content
