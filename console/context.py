"""Context processor: what the layout needs on every page (nav, user, role, namespaces)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest

from accounts.roles import ROLES, roles_of
from console.namespaces import current_namespace, readable_namespaces
from console.nav import NavItem, nav_items

__all__ = ["ConsoleContext", "console"]


@dataclass(frozen=True, slots=True)
class ConsoleContext:
    """The layout's view of the request: navigation, who is signed in, which namespace."""

    nav: list[NavItem]
    roles: frozenset[str]
    role: str
    namespaces: list[str]
    namespace: str


def console(request: HttpRequest) -> dict[str, Any]:
    """Return ``{"console": ConsoleContext}`` for signed-in users (nothing for others)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    roles = roles_of(user)
    role = next((r for r in reversed(ROLES) if r in roles), "")
    return {
        "console": ConsoleContext(
            nav=nav_items(request.path, frozenset(roles)),
            roles=roles,
            role=role,
            namespaces=readable_namespaces(user),
            namespace=current_namespace(request),
        )
    }
