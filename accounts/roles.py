"""Who may do what: the four roles (Django groups), namespace grants, and the checks.

- **viewer** reads what they are granted: namespaced objects in their granted
  namespaces, and the cluster-wide ones (queues, nodes, priority classes, the
  scheduler configuration).
- **submitter** reads like a viewer and creates, changes (abort/resume by bus
  Commands) and deletes jobs in their granted namespaces.
- **operator** reads and writes everything in every namespace: queues, nodes,
  the scheduler configuration, statuses; and reads the audit log.
- **admin** is an operator who may also use the Django admin (superusers are admins).

Every API view names the resource it serves (``view.access_name``); the app that
serves it registered which roles may read and write it (``kube.registry.AccessRule``,
built from the role sets here: ``EVERYONE``, ``SUBMITTERS``, ``OPERATORS``). A name no
app registered is refused to everyone. An anonymous call is 401, a refused one 403,
both before anything is written.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from accounts.models import NamespaceGrant
from kube import registry
from kube.status import KubeError

__all__ = [
    "ADMIN",
    "EVERYONE",
    "OPERATOR",
    "OPERATORS",
    "ROLES",
    "SUBMITTER",
    "SUBMITTERS",
    "VIEWER",
    "KubeAccess",
    "allowed_namespaces",
    "can",
    "role_required",
    "roles_of",
]

VIEWER, SUBMITTER, OPERATOR, ADMIN = "viewer", "submitter", "operator", "admin"
ROLES = (VIEWER, SUBMITTER, OPERATOR, ADMIN)
# The role sets access rules are made of.
EVERYONE = frozenset(ROLES)
SUBMITTERS = frozenset({SUBMITTER, OPERATOR, ADMIN})
OPERATORS = frozenset({OPERATOR, ADMIN})


def roles_of(user: Any) -> frozenset[str]:
    """Return the roles of ``user`` (its groups; superusers are admins), cached on the user."""
    if user is None or not user.is_authenticated or not user.is_active:
        return frozenset()
    cached: frozenset[str] | None = getattr(user, "_volcano_roles", None)
    if cached is None:
        names = set(user.groups.filter(name__in=ROLES).values_list("name", flat=True))
        if user.is_superuser:
            names.add(ADMIN)
        cached = frozenset(names)
        user._volcano_roles = cached
    return cached


def allowed_namespaces(user: Any) -> frozenset[str] | None:
    """Return the namespaces ``user`` may use (``None``: all of them), cached on the user."""
    if roles_of(user) & OPERATORS:
        return None
    cached: frozenset[str] | None = getattr(user, "_volcano_namespaces", None)
    if cached is None:
        grants = NamespaceGrant.objects.filter(
            Q(user=user) | Q(group__in=user.groups.all())
        ).values_list("namespace", flat=True)
        cached = frozenset(grants)
        user._volcano_namespaces = cached
    return cached


def can(user: Any, access: str, *, write: bool, namespace: str | None = None) -> bool:
    """Return whether ``user`` may read (or write) ``access`` in ``namespace``.

    The rule is the one the serving app registered (``kube.registry.access_rule``).
    """
    rule = registry.access_rule(access)
    if rule is None:
        return False
    if not roles_of(user) & (rule.write if write else rule.read):
        return False
    if rule.namespaced and namespace is not None:
        allowed = allowed_namespaces(user)
        return allowed is None or namespace in allowed
    return True


class KubeAccess(BasePermission):
    """DRF permission: 401 Status when anonymous, 403 Status when the table says no."""

    def has_permission(self, request: Request, view: Any) -> bool:
        user = request.user
        if not user.is_authenticated:
            return False  # DRF answers 401 through the authenticator's header
        access = str(getattr(view, "access_name", ""))
        namespace = view.kwargs.get("namespace")
        write = request.method not in SAFE_METHODS
        if not can(user, access, write=write, namespace=namespace):
            verb = "write" if write else "read"
            where = f' in the namespace "{namespace}"' if namespace else ""
            raise KubeError(403, f'User "{user.get_username()}" cannot {verb} {access}{where}')
        return True


def role_required(
    *roles: str,
) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """Guard a page: log in first, then hold one of ``roles`` (none given: any role)."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            held = roles_of(request.user)
            if not held or (roles and not held & set(roles)):
                raise PermissionDenied  # the 403 page says what the role may do next
            return view(request, *args, **kwargs)

        return guarded

    return decorate
