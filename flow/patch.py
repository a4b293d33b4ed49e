"""A flow step's ``patch``: its Job spec fragment merged over the template's, by name.

Volcano's JobFlow design ("Job Template Parameter Overriding") says how: scalars are replaced;
``tasks``, ``volumes``, a pod's ``containers`` and ``volumes``, a container's ``env`` are merged
by ``name`` (a matched entry is merged recursively, an unmatched one is added); ``ports`` by
``containerPort``, ``volumeMounts`` by ``mountPath``, ``tolerations`` by ``key``, ``hostAliases``
by ``ip``; ``plugins``, ``nodeSelector`` and resource lists are merged by key; ``policies``,
``command``, ``args`` and every other list are replaced whole. Merging never changes the
template: a step's job gets a copy.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["merge_job_spec"]

# The key a list's entries are matched by; lists not named here are replaced whole.
_LIST_KEYS = {
    "tasks": "name",
    "volumes": "name",
    "containers": "name",
    "initContainers": "name",
    "env": "name",
    "ports": "containerPort",
    "volumeMounts": "mountPath",
    "tolerations": "key",
    "hostAliases": "ip",
}
# Objects replaced whole rather than merged key by key.
_REPLACED = {"affinity", "securityContext", "livenessProbe", "readinessProbe", "networkTopology"}


def _merge(base: Any, patch: Any, key: str = "") -> Any:
    if isinstance(base, dict) and isinstance(patch, dict) and key not in _REPLACED:
        merged = dict(base)
        for name, value in patch.items():
            merged[name] = _merge(base[name], value, name) if name in base else copy.deepcopy(value)
        return merged
    if isinstance(base, list) and isinstance(patch, list) and key in _LIST_KEYS:
        match = _LIST_KEYS[key]
        merged_list = [copy.deepcopy(item) for item in base]
        for item in patch:
            found = next(
                (
                    i
                    for i, old in enumerate(merged_list)
                    if isinstance(old, dict) and isinstance(item, dict)
                    and match in item and old.get(match) == item.get(match)
                ),
                None,
            )  # fmt: skip
            if found is None:
                merged_list.append(copy.deepcopy(item))
            else:
                merged_list[found] = _merge(merged_list[found], item)
        return merged_list
    return copy.deepcopy(patch)


def merge_job_spec(template: dict[str, Any], patch: dict[str, Any] | None) -> dict[str, Any]:
    """Return ``template`` with ``patch`` merged over it (a new object; both are left as they are)."""
    if not patch:
        return copy.deepcopy(template)
    merged: dict[str, Any] = _merge(template, patch)
    return merged
