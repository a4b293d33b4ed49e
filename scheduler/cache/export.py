"""A live snapshot → a scenario file (``shared/docs/scenario-format.md``), as ROADMAP asks.

An operator who sees a surprising session can save exactly what that session saw, replay it with
``manage.py simulate FILE`` on the pure engine, edit the conf and compare. Export the snapshot
*before* the session runs: a session mutates the ``ClusterInfo`` it is given.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from apis.quantity import format_quantity
from scheduler.cache.export_topology import (
    hypernode_objects,
    label_selector,
    network_topology,
    numatopology_objects,
    queue_affinity,
    sub_group_policies,
)
from scheduler.engine.api.cluster_info import ClusterInfo
from scheduler.engine.api.resource import PODS, Resource
from scheduler.engine.api.task_info import TaskInfo
from scheduler.engine.api.types import TaskStatus
from scheduler.engine.util.node_usage import SIM_NODE_USAGE, node_usage_annotation

__all__ = ["snapshot_to_scenario"]

_BINARY = frozenset({"memory", "ephemeral-storage", "storage"})
_BLOCK_STYLE_MAX = 500  # objects; above, one flow-style line per object (fast to write)


def _quantities(res: Resource | None, *, drop_pods: bool = False) -> dict[str, str]:
    if res is None:
        return {}
    return {
        # quota names too: requests.memory, limits.ephemeral-storage
        name: format_quantity(milli, binary=name.rpartition(".")[2] in _BINARY)
        for name, milli in sorted(res.items())
        if not (drop_pods and name == PODS)
    }


def _time(value: Any) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value is not None else None


def _pod_phase(status: TaskStatus) -> tuple[str, bool]:
    """Return the pod phase to write and whether it was being deleted."""
    if status == TaskStatus.RELEASING:
        return "Running", True
    if status in (TaskStatus.RUNNING, TaskStatus.SUCCEEDED, TaskStatus.FAILED, TaskStatus.UNKNOWN):
        return str(status), False
    return "Pending", False


def _pod(task: TaskInfo, group: str | None) -> dict[str, Any]:
    phase, deleting = _pod_phase(task.status)
    annotations = dict(task.annotations)
    if group:
        annotations["scheduling.k8s.io/group-name"] = group
    if task.role:
        annotations["volcano.sh/task-spec"] = task.role
    meta: dict[str, Any] = {"name": task.name, "namespace": task.namespace}
    if annotations:
        meta["annotations"] = annotations
    if task.labels:
        meta["labels"] = dict(task.labels)
    if task.creation_timestamp is not None:
        meta["creationTimestamp"] = _time(task.creation_timestamp)
    if deleting:
        meta["deletionTimestamp"] = _time(task.creation_timestamp) or "1970-01-01T00:00:00Z"
    t = task.template
    spec: dict[str, Any] = {
        "schedulerName": "volcano",
        "priority": task.priority,
        "containers": [
            {
                "name": "main",
                "resources": {"requests": _quantities(task.resreq, drop_pods=True)},
            }
        ],
    }
    if task.limits is not None and not task.limits.is_empty():  # the usage plugin's estimate
        spec["containers"][0]["resources"]["limits"] = _quantities(task.limits)
    if task.node_name and task.status != TaskStatus.PENDING:
        spec["nodeName"] = task.node_name
    if t.node_selector:
        spec["nodeSelector"] = dict(t.node_selector)
    if t.affinity:
        spec["affinity"] = t.affinity
    if t.tolerations:
        spec["tolerations"] = [
            {k: v for k, v in (("key", x.key), ("operator", x.operator), ("value", x.value),
                               ("effect", x.effect)) if v}
            for x in t.tolerations
        ]  # fmt: skip
    if t.topology_spread_constraints:
        spec["topologySpreadConstraints"] = list(t.topology_spread_constraints)
    if task.preemption_policy:
        spec["preemptionPolicy"] = task.preemption_policy
    status: dict[str, Any] = {"phase": phase}
    if task.scheduled_at is not None:  # cdp's cool-down start, read only of labelled pods
        status["conditions"] = [
            {"type": "PodScheduled", "status": "True",
             "lastTransitionTime": _time(task.scheduled_at)}
        ]  # fmt: skip
    if task.nominated_node_name:  # a pipelined pod's reservation, as the next session reads it
        status["nominatedNodeName"] = task.nominated_node_name
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


def _guards(cluster: ClusterInfo) -> list[dict[str, Any]]:
    """The PodDisruptionBudgets and ResourceQuotas, as much of them as the scheduler reads."""
    objects: list[dict[str, Any]] = []
    for pdb in sorted(cluster.pdbs, key=lambda p: p.uid):
        spec: dict[str, Any] = {}
        if pdb.selector is not None:
            spec["selector"] = label_selector(pdb.selector)
        status: dict[str, Any] = {"disruptionsAllowed": pdb.disruptions_allowed}
        if pdb.disrupted_pods:  # when each was evicted is not kept: the snapshot's instant
            status["disruptedPods"] = {
                pod: _time(cluster.now) for pod in sorted(pdb.disrupted_pods)
            }
        objects.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                        "metadata": {"name": pdb.name, "namespace": pdb.namespace},
                        "spec": spec, "status": status})  # fmt: skip
    for quotas in sorted(
        cluster.resource_quotas.values(), key=lambda q: q[0].namespace if q else ""
    ):
        for quota in sorted(quotas, key=lambda q: q.name):
            objects.append({"apiVersion": "v1", "kind": "ResourceQuota",
                            "metadata": {"name": quota.name, "namespace": quota.namespace},
                            "status": {"hard": _quantities(quota.hard),
                                       "used": _quantities(quota.used)}})  # fmt: skip
    return objects


def snapshot_to_scenario(
    cluster: ClusterInfo, *, conf_text: str, name: str, description: str = ""
) -> str:
    """Return the YAML of a scenario holding ``cluster`` and ``conf_text`` (no ``expect``)."""
    objects: list[dict[str, Any]] = []
    for class_name, value in sorted(cluster.priority_classes.items()):
        objects.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                        "metadata": {"name": class_name}, "value": value})  # fmt: skip
    for node in cluster.node_list:
        spec: dict[str, Any] = {"unschedulable": node.unschedulable}
        if node.taints:
            spec["taints"] = [{"key": t.key, "value": t.value, "effect": t.effect}
                              for t in node.taints]  # fmt: skip
        node_meta: dict[str, Any] = {"name": node.name, "labels": dict(node.labels)}
        # Device registrations (volcano.sh/node-vgpu-register, gpu-unhealthy-ids) among them.
        notes = dict(node.annotations)
        usage = node_usage_annotation(node.resource_usage, cluster.now)
        if usage is not None:
            notes[SIM_NODE_USAGE] = usage
        if notes:
            node_meta["annotations"] = notes
        node_status: dict[str, Any] = {"allocatable": _quantities(node.allocatable)}
        if node.capacity is not None:  # gpushare reads its cards from capacity
            node_status["capacity"] = _quantities(node.capacity)
        objects.append({
            "apiVersion": "v1", "kind": "Node",
            "metadata": node_meta, "spec": spec, "status": node_status,
        })  # fmt: skip
    objects.extend(numatopology_objects(cluster))
    objects.extend(hypernode_objects(cluster))
    for queue in sorted(cluster.queues.values(), key=lambda q: q.name):
        qspec: dict[str, Any] = {"weight": queue.weight, "reclaimable": queue.reclaimable}
        for key, res in (("capability", queue.capability), ("deserved", queue.deserved)):
            if res is not None:
                qspec[key] = _quantities(res)
        if queue.guarantee is not None:
            qspec["guarantee"] = {"resource": _quantities(queue.guarantee)}
        if queue.parent:
            qspec["parent"] = queue.parent
        if queue.affinity is not None:
            qspec["affinity"] = queue_affinity(queue.affinity)
        qmeta: dict[str, Any] = {"name": queue.name}
        if queue.annotations:  # nodegroup's volcano.sh/nodegroup-resource-limits among them
            qmeta["annotations"] = dict(queue.annotations)
        objects.append({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
                        "metadata": qmeta, "spec": qspec,
                        "status": {"state": str(queue.state)}})  # fmt: skip
    for job in sorted(cluster.jobs.values(), key=lambda j: j.uid):
        bare = len(job.tasks) == 1 and next(iter(job.tasks.values())).name == job.name
        if not bare:
            gspec: dict[str, Any] = {"minMember": job.min_available, "queue": job.queue}
            if job.task_min_available:
                gspec["minTaskMember"] = dict(job.task_min_available)
            # As written, quota names included (resourcequota reads them); the scenario reader
            # derives the scheduling names from them again.
            min_resources = job.quota_min_resources or job.min_resources
            if min_resources is not None:
                gspec["minResources"] = _quantities(min_resources)
            if job.priority_class_name:
                gspec["priorityClassName"] = job.priority_class_name
            if job.network_topology is not None:
                gspec["networkTopology"] = network_topology(job.network_topology)
            if job.sub_group_policy:
                gspec["subGroupPolicy"] = sub_group_policies(job.sub_group_policy)
            meta: dict[str, Any] = {"name": job.name, "namespace": job.namespace}
            if job.annotations:  # task-topology's volcano.sh/task-topology-* among them
                meta["annotations"] = dict(job.annotations)
            if job.creation_timestamp is not None:
                meta["creationTimestamp"] = _time(job.creation_timestamp)
            if job.labels:
                meta["labels"] = dict(job.labels)
            objects.append({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                            "metadata": meta, "spec": gspec,
                            "status": {"phase": str(job.phase)}})  # fmt: skip
        for task in sorted(job.tasks.values(), key=lambda t: t.uid):
            objects.append(_pod(task, None if bare else job.name))
    objects.extend(_guards(cluster))
    document = {
        "name": name,
        "description": description or f"Snapshot of the live cluster at {_time(cluster.now)}",
        "now": _time(cluster.now),
        "config": conf_text,
        "objects": objects,
    }
    if len(objects) <= _BLOCK_STYLE_MAX:
        return yaml.safe_dump(document, sort_keys=False, width=100)
    # A large snapshot: one object per line in flow style (JSON is YAML's flow syntax). PyYAML's
    # representer takes about 12 s for 5,000 pods in block style; this takes well under 1 s, and
    # a line per object still reads and diffs well.
    head = yaml.safe_dump({k: v for k, v in document.items() if k != "objects"},
                          sort_keys=False, width=100)  # fmt: skip
    lines = [f"- {json.dumps(obj, ensure_ascii=False, separators=(', ', ': '))}\n"
             for obj in objects]  # fmt: skip
    return f"{head}objects:\n{''.join(lines)}"
