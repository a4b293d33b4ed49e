"""A task's ``partitionPolicy``: its default minAvailable and the rules Volcano applies to it.

A partitioned task runs ``totalPartitions`` groups of ``partitionSize`` pods (so replicas must
be their product); ``minPartitions`` > 0 makes the task's gang that many whole groups
(minAvailable = minPartitions x partitionSize, which the mutating webhook fills when the task
names none). The CRD asks both counts and at least 1 of each, and minPartitions >= 0; the
webhook (``validatePartitionPolicy``, on create and update) stops at the first broken rule
of a task, in the order below, then checks the partition's networkTopology.
"""

from __future__ import annotations

from typing import Any

from apis.errors import ManifestError
from apis.wire import Fields
from jobs.manifests.job import read_partition_policy
from jobs.models import Job, TaskSpec
from kube.admission_causes import Causes
from queues.admission.network_topology import validate_network_topology, validate_tier_exclusive
from queues.manifests.reread import reread

__all__ = ["partition_min_available", "validate_partition_policy"]


def partition_min_available(task: TaskSpec) -> int:
    """Return the minAvailable Volcano's webhook gives a task that names none."""
    policy = task.partition_policy if isinstance(task.partition_policy, dict) else {}
    min_partitions, size = policy.get("minPartitions") or 0, policy.get("partitionSize") or 0
    if isinstance(min_partitions, int) and isinstance(size, int) and min_partitions > 0:
        return min_partitions * size
    return task.replicas


def _read(fields: Fields, key: str) -> dict[str, Any] | None:
    return read_partition_policy(fields)


def validate_partition_policy(job: Job, task: TaskSpec, at: str, causes: Causes) -> None:
    """Record every refusal of ``task``'s partitionPolicy (``at``: the task's wire path)."""
    if task.partition_policy is None:
        return
    here = f"{at}.partitionPolicy"
    try:
        policy = reread(_read, task.partition_policy, here)
    except ManifestError as exc:
        causes.invalid(exc.field, exc.message)
        return
    if policy is None:
        return
    where = f"in task: {task.name}, job: {job.name}"
    schema_ok = True
    for key in ("totalPartitions", "partitionSize"):
        value = policy.get(key)
        if value is None:
            causes.required(f"{here}.{key}")
            schema_ok = False
        elif value < 1:
            causes.invalid(f"{here}.{key}", f"{value}: must be greater than or equal to 1")
            schema_ok = False
    min_partitions = policy["minPartitions"]
    if min_partitions < 0:
        causes.invalid(
            f"{here}.minPartitions", f"{min_partitions}: must be greater than or equal to 0"
        )
        schema_ok = False
    topology = validate_network_topology(
        policy.get("networkTopology"), f"{here}.networkTopology", causes
    )
    if schema_ok:
        total, size = policy["totalPartitions"], policy["partitionSize"]
        if task.replicas != total * size:
            causes.invalid(
                f"{at}.replicas",
                f"{task.replicas}: 'Replicas' are not equal to TotalPartitions*PartitionSize "
                f"({total}*{size}) {where}",
            )
        elif (
            task.min_available is not None
            and min_partitions > 0
            and task.min_available != min_partitions * size
        ):
            causes.invalid(
                f"{at}.minAvailable",
                f"{task.min_available}: 'MinAvailable' is not equal to MinPartitions*PartitionSize "
                f"({min_partitions}*{size}) {where}",
            )
    validate_tier_exclusive(topology, f"{here}.networkTopology", causes)
