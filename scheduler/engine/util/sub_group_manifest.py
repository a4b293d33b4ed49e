"""Reading a PodGroup's ``spec.subGroupPolicy`` (the scenario loader and the live snapshot).

Volcano's counterpart: ``scheduling.SubGroupPolicySpec`` (name, subGroupSize default 1,
minSubGroups default 0, labelSelector, matchLabelKeys, networkTopology). Volcano's job controller
writes one per partitioned task: the task's pods (``labelSelector`` on ``volcano.sh/task-spec``)
split by ``volcano.sh/partition-id``.
"""

from __future__ import annotations

from apis.errors import ManifestError
from scheduler.engine.api.sub_job import SubGroupPolicy
from scheduler.engine.util.hypernode_manifest import read_network_topology
from scheduler.engine.util.manifests import check_keys, mapping
from scheduler.engine.util.pdb_manifest import read_label_selector

__all__ = ["read_sub_group_policies"]

_KEYS = frozenset(
    {"name", "subGroupSize", "minSubGroups", "labelSelector", "matchLabelKeys", "networkTopology"}
)


def _count(value: object, default: int, minimum: int, field: str) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ManifestError(field, f"expected an integer >= {minimum}, got {value!r}")
    return value


def _policy(raw: object, path: str) -> SubGroupPolicy:
    data = mapping(raw, path)
    check_keys(data, _KEYS, path)
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise ManifestError(f"{path}.name", "required")
    keys = data.get("matchLabelKeys") or []
    if not isinstance(keys, list) or not all(isinstance(k, str) and k for k in keys):
        raise ManifestError(f"{path}.matchLabelKeys", "expected a list of label keys")
    selector = data.get("labelSelector")
    return SubGroupPolicy(
        name=name,
        sub_group_size=_count(data.get("subGroupSize"), 1, 0, f"{path}.subGroupSize"),
        min_sub_groups=_count(data.get("minSubGroups"), 0, 0, f"{path}.minSubGroups"),
        match_label_keys=tuple(keys),
        label_selector=None
        if selector is None
        else read_label_selector(selector, f"{path}.labelSelector"),
        network_topology=read_network_topology(
            data.get("networkTopology"), f"{path}.networkTopology"
        ),
    )


def read_sub_group_policies(raw: object, path: str) -> tuple[SubGroupPolicy, ...]:
    """Return a ``spec.subGroupPolicy`` list (empty when absent); ``path`` names that field."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise ManifestError(path, "expected a list")
    policies = tuple(_policy(item, f"{path}[{i}]") for i, item in enumerate(raw))
    names = [p.name for p in policies]
    if len(set(names)) != len(names):
        raise ManifestError(path, "policy names must be unique")
    return policies
