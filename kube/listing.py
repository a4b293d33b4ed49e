"""Lists: namespace and selector filters, ``limit``/``continue`` pages over one snapshot.

Pages are keyed on (namespace, name, pk), Kubernetes' key order. The continue
token is signed and carries the list's resourceVersion, the highest pk that
existed when the first page was read, the last key served and the time: later
pages never show an object created after the first page, never repeat or skip
one that exists throughout, and a token older than five minutes is 410 Expired
as in Kubernetes. Every page costs the same few queries whatever its size, and a page deep
in a long list costs what the first does (a keyset walk of the index, no OFFSET, no count).
"""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from django.core import signing
from django.db.models import F, Max, Q, QuerySet
from django.db.models.fields.tuple_lookups import (  # type: ignore[import-untyped]  # no stubs
    Tuple,
    TupleGreaterThan,
)

from kube.changes import latest_resource_version
from kube.resources import Resource
from kube.selectors import Requirement
from kube.status import KubeError

__all__ = ["ListQuery", "list_objects"]

CONTINUE_TTL_SECONDS = 300
MAX_LIMIT = 500
_SALT = "kube.continue"


@dataclass
class ListQuery:
    """What one list (or watch) asks for."""

    namespace: str | None = None  # None: every namespace
    allowed_namespaces: Collection[str] | None = None  # None: no restriction (roles)
    labels: tuple[Requirement, ...] = ()
    fields: tuple[Requirement, ...] = ()
    limit: int = 0
    cont: str = ""


def filtered(resource: Resource, query: ListQuery) -> QuerySet[Any]:
    """Return the stored objects matching ``query``'s namespace, roles and selectors."""
    queryset = resource.queryset()
    if resource.namespaced:
        if query.namespace is not None:
            queryset = queryset.filter(namespace=query.namespace)
        if query.allowed_namespaces is not None:
            queryset = queryset.filter(namespace__in=list(query.allowed_namespaces))
    condition = Q()
    for requirement in query.labels:
        condition &= requirement.label_q()
    for requirement in query.fields:
        condition &= requirement.field_q(resource.field_selectors[requirement.key])
    return queryset.filter(condition)


def _order(resource: Resource) -> tuple[str, ...]:
    return ("namespace", "name", "pk") if resource.namespaced else ("name", "pk")


def _after(resource: Resource, key: list[Any]) -> Any:
    """Return the keyset condition "strictly after ``key``" in list order.

    As one row comparison, ``(namespace, name, id) > (...)``: the database walks the
    (namespace, name) index from the key, where the same condition spelled as ORs made
    PostgreSQL read the whole table for every page (136 ms a page at 200,000 pods).
    """
    return TupleGreaterThan(Tuple(*(F(name) for name in _order(resource))), list(key))


def list_objects(resource: Resource, query: ListQuery) -> tuple[list[Any], int, str, int]:
    """Return (page, list resourceVersion, continue token, remaining count).

    The remaining count is what the first page counted less what the pages served since,
    as kube-apiserver's ``remainingItemCount`` (an estimate: objects deleted meanwhile are
    still counted): counting the rest anew on every page cost a scan of it each time.
    """
    queryset = filtered(resource, query).order_by(*_order(resource))
    total: int | None = None
    served = 0
    if query.cont:
        state = _decode(query.cont)
        version, top, key = state["v"], state["p"], state["k"]
        total, served = state.get("n"), int(state.get("s", 0))
        queryset = queryset.filter(_after(resource, key), pk__lte=top)
    else:
        version = latest_resource_version()
        top = resource.model._default_manager.aggregate(top=Max("pk"))["top"] or 0
        queryset = queryset.filter(pk__lte=top)
    limit = min(query.limit, MAX_LIMIT) if query.limit > 0 else 0
    if not limit:
        return list(queryset), version, "", 0
    page = list(queryset[: limit + 1])
    if len(page) <= limit:
        return page, version, "", 0
    page = page[:limit]
    last = page[-1]
    key = [getattr(last, name) for name in _order(resource)]
    served += limit
    if total is None:  # the first page (or a token from before the count was kept)
        total = served + queryset.filter(_after(resource, key)).count()
    remaining = max(0, total - served)
    token = signing.dumps(
        {"v": version, "p": top, "k": key, "t": time.time(), "n": total, "s": served}, salt=_SALT
    )
    return page, version, token, remaining


def _decode(token: str) -> dict[str, Any]:
    try:
        state: dict[str, Any] = signing.loads(token, salt=_SALT)
    except signing.BadSignature as exc:
        raise KubeError(400, "continue key is not valid") from exc
    if time.time() - float(state["t"]) > CONTINUE_TTL_SECONDS:
        raise KubeError(
            410,
            "The provided continue parameter is too old to display a consistent list result."
            " You can start a new list without the continue parameter.",
            reason="Expired",
        )
    return state
