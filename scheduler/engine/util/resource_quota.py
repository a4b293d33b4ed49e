"""Kind ``ResourceQuota`` (``v1``, namespaced) → ``QuotaInfo``.

Only ``status.hard`` and ``status.used`` are read (the quota controller derives ``status.hard``
from ``spec.hard``); ``spec`` is accepted and ignored, as Volcano's scheduler ignores it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scheduler.engine.api.quota_info import QuotaInfo
from scheduler.engine.api.resource import Resource
from scheduler.engine.util.manifests import check_keys, mapping

__all__ = ["read_resource_quota"]

_SPEC_KEYS = frozenset({"hard", "scopes", "scopeSelector"})


def read_resource_quota(obj: Mapping[str, Any], meta: Mapping[str, Any], field: str) -> QuotaInfo:
    """Return the quota a ``v1`` ResourceQuota's status describes."""
    check_keys(obj, frozenset({"apiVersion", "kind", "metadata", "spec", "status"}), field)
    check_keys(mapping(obj.get("spec"), f"{field}.spec"), _SPEC_KEYS, f"{field}.spec")
    status = mapping(obj.get("status"), f"{field}.status")
    check_keys(status, frozenset({"hard", "used"}), f"{field}.status")

    def amounts(key: str) -> Resource:
        path = f"{field}.status.{key}"
        return Resource.parse(mapping(status.get(key), path), field=path)

    return QuotaInfo(
        name=str(meta["name"]),
        namespace=str(meta.get("namespace") or "default"),
        hard=amounts("hard"),
        used=amounts("used"),
    )
