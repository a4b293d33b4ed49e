"""What a job's topology asks of its PodGroup: networkTopology and the subGroupPolicy list.

Volcano's job controller (``createOrUpdatePodGroup``) copies the job's ``networkTopology`` to
the PodGroup it creates, keeping ``highestTierAllowed`` when given, else
``highestTierName``; and turns each task with a ``partitionPolicy`` into one subGroupPolicy
named after the task: groups of ``partitionSize`` pods, at least ``minPartitions`` of them,
the task's pods (label ``volcano.sh/task-spec``) grouped by ``volcano.sh/partition-id``
(each pod's index // partitionSize, which the controller labels it with), and the
partition's own networkTopology. On later syncs the list is rewritten only when a
partitioned task's policy differs from the entry of its name, or a task without a
partitionPolicy still has an entry; entries naming no task are otherwise left alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jobs.models import TaskSpec
from queues.manifests.network_topology import DEFAULT_MODE

__all__ = [
    "PARTITION_ID",
    "TASK_SPEC",
    "partition_id",
    "pod_group_network_topology",
    "sub_group_policies",
    "sub_group_policy",
    "updated_sub_group_policies",
]

TASK_SPEC = "volcano.sh/task-spec"
PARTITION_ID = "volcano.sh/partition-id"


def pod_group_network_topology(topology: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Return the PodGroup's networkTopology for a job's (None when the job has none)."""
    if topology is None:
        return None
    copied: dict[str, Any] = {"mode": topology.get("mode", DEFAULT_MODE)}
    if topology.get("highestTierAllowed") is not None:
        copied["highestTierAllowed"] = topology["highestTierAllowed"]
    elif topology.get("highestTierName"):
        copied["highestTierName"] = topology["highestTierName"]
    return copied


def sub_group_policy(task: TaskSpec) -> dict[str, Any]:
    """Return the subGroupPolicy of a partitioned task (its partitionPolicy must be set)."""
    partition = task.partition_policy or {}
    policy: dict[str, Any] = {"name": task.name}
    if (topology := partition.get("networkTopology")) is not None:
        policy["networkTopology"] = dict(topology)
    policy["subGroupSize"] = partition.get("partitionSize", 0)
    policy["minSubGroups"] = partition.get("minPartitions", 0)
    policy["labelSelector"] = {"matchLabels": {TASK_SPEC: task.name}}
    policy["matchLabelKeys"] = [PARTITION_ID]
    return policy


def sub_group_policies(tasks: list[TaskSpec]) -> list[dict[str, Any]]:
    """Return the subGroupPolicy list of a new PodGroup: one per partitioned task."""
    return [sub_group_policy(task) for task in tasks if task.partition_policy is not None]


def updated_sub_group_policies(
    current: list[dict[str, Any]], tasks: list[TaskSpec]
) -> list[dict[str, Any]] | None:
    """Return the list a stored PodGroup should now hold, or None to leave it as it is."""
    by_name = {policy.get("name", ""): policy for policy in current}
    stale = False
    for task in tasks:
        if task.partition_policy is None:
            stale = stale or task.name in by_name
        elif sub_group_policy(task) != by_name.get(task.name):
            stale = True
    return sub_group_policies(tasks) if stale else None


def partition_id(task: TaskSpec, index: int) -> str | None:
    """Return the ``volcano.sh/partition-id`` of replica ``index`` (None: not partitioned)."""
    if task.partition_policy is None:
        return None
    size = task.partition_policy.get("partitionSize") or 0
    return str(index // size if isinstance(size, int) and size > 0 else 0)
