"""PodGroup admission (``validate_podgroup.go``, and the CRD's schema rules).

On create, Volcano's webhook wants a named queue to exist and be Open, and refuses a
networkTopology naming both a tier and a tier name (the group's own, and the first
subGroupPolicy's that does). The CRD's ranges (mode, tiers, subGroupSize >= 1,
minSubGroups >= 0, name length) hold on every write, as kube-apiserver checks them.

Volcano's PodGroup mutation rewrites queue ``default`` to the namespace's
``scheduling.volcano.sh/queue-name`` annotation; we have no Namespace objects,
so there is nothing to rewrite from.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from apis.errors import ManifestError
from apis.wire import Fields
from kube.admission_causes import Causes, CauseType
from kube.manifest_kinds import Loaded
from queues.admission.network_topology import (
    BOTH_TIERS,
    MAX_NAME,
    validate_network_topology,
    validate_tier_exclusive,
)
from queues.manifests.pod_group import PodGroupKind, read_sub_group_policy
from queues.manifests.reread import reread
from queues.models import PodGroup, Queue, QueueState

__all__ = ["admit_pod_group", "validate_pod_group", "validate_pod_group_schema"]


def validate_pod_group(group: PodGroup) -> Causes:
    """Return every create-time violation of ``group``."""
    causes = Causes()
    if group.queue:
        queue = Queue.objects.filter(name=group.queue).first()
        if queue is None:
            causes.not_found("spec.queue", f"unable to find queue: {group.queue}")
        elif queue.state != QueueState.OPEN:
            causes.forbidden(
                "spec.queue",
                f"can only submit PodGroup to queue with state `Open`, queue `{group.queue}` "
                f"status is `{queue.state}`",
            )
    schema, topology, policies = _validate_schema(group)
    causes.extend(schema)
    validate_tier_exclusive(topology, "spec.networkTopology", causes)
    for index, (name, policy_topology) in enumerate(policies):
        at = f"spec.subGroupPolicy[{index}].networkTopology"
        message = f"in subGroupPolicy '{name}': {BOTH_TIERS}"
        if validate_tier_exclusive(policy_topology, at, causes, message):
            break  # Volcano names the first such policy only
    return causes


def validate_pod_group_schema(group: PodGroup) -> Causes:
    """Return what the CRD's schema refuses in ``group`` (checked on create and update)."""
    return _validate_schema(group)[0]


def _read_policies(fields: Fields, key: str) -> list[dict[str, Any]]:
    return [read_sub_group_policy(item) for item in fields.objects(key)]


def _validate_schema(
    group: PodGroup,
) -> tuple[Causes, dict[str, Any] | None, list[tuple[str, dict[str, Any] | None]]]:
    """Return the schema's refusals, the group's networkTopology as read, and each
    subGroupPolicy's (name, networkTopology as read)."""
    causes = Causes()
    if group.min_member < 0:
        causes.invalid("spec.minMember", "must be greater than or equal to 0")
    topology = validate_network_topology(group.network_topology, "spec.networkTopology", causes)
    try:
        policies = reread(_read_policies, group.sub_group_policy or [], "spec.subGroupPolicy")
    except ManifestError as exc:
        causes.invalid(exc.field, exc.message)
        policies = []
    read: list[tuple[str, dict[str, Any] | None]] = []
    for index, policy in enumerate(policies):
        at = f"spec.subGroupPolicy[{index}]"
        name = policy.get("name", "")
        if len(name) > MAX_NAME:
            causes.add(
                f"{at}.name", CauseType.TOO_LONG, f"Too long: may not be more than {MAX_NAME} bytes"
            )
        size, least = policy["subGroupSize"], policy["minSubGroups"]
        if size < 1:
            causes.invalid(f"{at}.subGroupSize", f"{size}: must be greater than or equal to 1")
        if least < 0:
            causes.invalid(f"{at}.minSubGroups", f"{least}: must be greater than or equal to 0")
        nested = validate_network_topology(
            policy.get("networkTopology"), f"{at}.networkTopology", causes
        )
        read.append((name, nested))
    return causes, topology, read


def admit_pod_group(
    obj: Mapping[str, Any] | Loaded | PodGroup, *, old: PodGroup | None = None
) -> Loaded:
    """Return ``obj`` as a valid loaded PodGroup; raise ``AdmissionError`` otherwise.

    Volcano's webhook validates PodGroups on CREATE only, so an update (``old`` given) is
    checked against the CRD's schema alone: a PodGroup in a queue that has since closed can
    still change.
    """
    if isinstance(obj, PodGroup):
        loaded = Loaded(PodGroupKind(), obj)
    elif isinstance(obj, Loaded):
        loaded = obj
    else:
        try:
            loaded = PodGroupKind().load(obj)
        except ManifestError as exc:
            causes = Causes()
            causes.invalid(exc.field, exc.message)
            causes.raise_if_any(kind="PodGroup")
            raise
    group: PodGroup = loaded.instance
    causes = validate_pod_group(group) if old is None else validate_pod_group_schema(group)
    causes.raise_if_any(kind="PodGroup", name=group.name)
    return loaded
