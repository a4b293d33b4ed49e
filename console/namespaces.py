"""Which namespaces a console user may read, and which one the page is showing.

The current namespace comes from the URL (``?namespace=``) so a filtered view is a link that
can be shared; the last choice is remembered in the session so that moving between pages
keeps it. An empty string means "every namespace I may read".
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from accounts.roles import allowed_namespaces
from kube import registry

__all__ = ["SESSION_KEY", "current_namespace", "readable_namespaces", "restrict"]

SESSION_KEY = "console.namespace"


def readable_namespaces(user: Any) -> list[str]:
    """Return the namespaces ``user`` may read, sorted: their grants, or every namespace.

    Operators read every namespace (the Namespace objects, as ``kubectl get ns`` lists them;
    the kernel names their model, so the console needs nothing of core).
    """
    allowed = allowed_namespaces(user)
    if allowed is not None:
        return sorted(allowed)
    namespaces = registry.namespace_model()
    if namespaces is None:
        return []
    return list(namespaces._default_manager.order_by("name").values_list("name", flat=True))


def current_namespace(request: HttpRequest) -> str:
    """Return the namespace the page shows ("" for all readable), remembering the choice.

    A namespace the user may not read is ignored (the page shows all they may read), so a
    shared link never widens what a user sees.
    """
    cached: str | None = getattr(request, "_console_namespace", None)
    if cached is not None:
        return cached
    session = getattr(request, "session", None)
    if "namespace" in request.GET:
        chosen = request.GET["namespace"].strip()
    else:
        chosen = str(session.get(SESSION_KEY, "")) if session is not None else ""
    allowed = allowed_namespaces(request.user)
    if chosen and allowed is not None and chosen not in allowed:
        chosen = ""
    if session is not None and session.get(SESSION_KEY, "") != chosen:
        session[SESSION_KEY] = chosen
    request._console_namespace = chosen  # type: ignore[attr-defined]
    return chosen


def restrict(queryset: Any, user: Any, namespace: str = "", *, field: str = "namespace") -> Any:
    """Return ``queryset`` limited to ``namespace`` (if given) and to what ``user`` may read."""
    if namespace:
        queryset = queryset.filter(**{field: namespace})
    allowed = allowed_namespaces(user)
    if allowed is not None:
        queryset = queryset.filter(**{f"{field}__in": sorted(allowed)})
    return queryset
