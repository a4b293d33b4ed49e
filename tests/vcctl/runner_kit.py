"""What a vcctl run returns, and the API tokens the live-server tests run it with."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import Group

from accounts.models import NamespaceGrant
from accounts.services import token_create


@dataclass(frozen=True)
class Result:
    """What one vcctl run printed and its exit code."""

    code: int
    out: str
    err: str


Runner = Callable[..., Result]


def make_token(django_user_model: Any, role: str, *, namespaces: tuple[str, ...] = ()) -> str:
    """Return a new API token of a user holding ``role`` (granted ``namespaces``)."""
    user = django_user_model.objects.create_user(f"{role}-user", password="pw-" + role)
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    for namespace in namespaces:
        NamespaceGrant.objects.create(user=user, namespace=namespace)
    return token_create(user=user, name="cli")[1]
