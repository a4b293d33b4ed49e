"""The extender's wire: snapshot objects as Volcano's JSON, and the answers read as Volcano reads them.

Volcano's counterpart: ``pkg/scheduler/plugins/extender/argument.go`` and the ``encoding/json``
form of ``pkg/scheduler/api`` (``TaskInfo``, ``NodeInfo``, ``JobInfo``, ``QueueInfo``,
``Resource``). Those Go structs carry no json tags, so their fields go out under their Go names
(``UID``, ``Resreq``, ``Idle``; embedded ``TransactionContext`` fields inline), statuses as their
integer values (``Pending`` = 1, ``Allocated`` = 2, ...), and the Kubernetes objects inside them
(``Pod``, ``Node``, ``PodGroup``, ``Queue``) as Kubernetes writes them. The request and response
envelopes do carry tags (``task``, ``node``, ``nodeScore``, ``status``...), kept here exactly.

Fields the engine does not model (NUMA, DRA, hypernodes, image states) go out as Go's zero
values, so an extender written against Volcano decodes every request. Answers are read as Go's
``json.Decoder`` reads them into the response structs: unknown fields are ignored, field names
match case-insensitively, a missing field is its zero value, a wrong type is an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from apis.wire import format_resources, format_time
from scheduler.engine.api.resource import CPU, MEMORY, PODS, Resource
from scheduler.engine.api.types import FitCode, TaskStatus

if TYPE_CHECKING:
    from scheduler.engine.api.job_info import JobInfo
    from scheduler.engine.api.node_info import NodeInfo
    from scheduler.engine.api.queue_info import QueueInfo
    from scheduler.engine.api.task_info import TaskInfo, Toleration

__all__ = [
    "FIT_CODES",
    "STATUS_VALUES",
    "WireError",
    "job_json",
    "node_json",
    "queue_json",
    "read_bool",
    "read_int",
    "read_scores",
    "read_str",
    "read_victim_uids",
    "resource_json",
    "task_json",
]

# Volcano's ``TaskStatus`` is a bit flag (``1 << iota``): the number is what goes on the wire.
STATUS_VALUES: dict[TaskStatus, int] = {status: 1 << i for i, status in enumerate(TaskStatus)}

# ``api.Status`` codes (``Success`` = 0); a predicate answer's ``code`` is one of these.
FIT_CODES: dict[int, FitCode] = {
    1: FitCode.ERROR,
    2: FitCode.UNSCHEDULABLE,
    3: FitCode.UNSCHEDULABLE_AND_UNRESOLVABLE,
    4: FitCode.WAIT,
    5: FitCode.SKIP,
}

_NODE_READY = 1  # NodePhase Ready (``1 << iota``)

_POD_PHASES: dict[TaskStatus, str] = {
    TaskStatus.RUNNING: "Running",
    TaskStatus.RELEASING: "Running",
    TaskStatus.SUCCEEDED: "Succeeded",
    TaskStatus.FAILED: "Failed",
    TaskStatus.UNKNOWN: "Unknown",
}


class WireError(ValueError):
    """An extender's answer that Go's decoder would refuse (Volcano's ``send`` error)."""


# --- writing ---------------------------------------------------------------------------------
def resource_json(resource: Resource | None) -> dict[str, Any] | None:
    """Return ``api.Resource`` as Go writes it: cpu in millis, memory in bytes, scalars in millis."""
    if resource is None:
        return None
    scalars = {
        name: float(milli) for name, milli in resource.items() if name not in (CPU, MEMORY, PODS)
    }
    return {
        "MilliCPU": float(resource.get(CPU)),
        "Memory": float(resource.get(MEMORY) // 1000),
        "ScalarResources": scalars or None,
        "MaxTaskNum": resource.get(PODS) // 1000,
    }


def _meta(
    name: str,
    namespace: str = "",
    *,
    uid: str = "",
    labels: Mapping[str, str] | None = None,
    annotations: Mapping[str, str] | None = None,
    created: Any = None,
) -> dict[str, Any]:
    """Return an ObjectMeta with Kubernetes' omitempty rules."""
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    if uid:
        meta["uid"] = uid
    meta["creationTimestamp"] = format_time(created) if created is not None else None
    if labels:
        meta["labels"] = dict(labels)
    if annotations:
        meta["annotations"] = dict(annotations)
    return meta


def _requests(resource: Resource) -> dict[str, str]:
    return format_resources({n: v for n, v in resource.items() if n != PODS})


def _toleration_json(toleration: Toleration) -> dict[str, str]:
    pairs = (
        ("key", toleration.key),
        ("operator", toleration.operator),
        ("value", toleration.value),
        ("effect", toleration.effect),
    )
    return {k: v for k, v in pairs if v}


def _pod_json(task: TaskInfo) -> dict[str, Any]:
    """Return the task's pod as ``v1.Pod`` JSON: what the snapshot knows of it."""
    template = task.template
    container: dict[str, Any] = {"name": task.role or "main"}
    if template.images:
        container["image"] = template.images[0]
    container["resources"] = {"requests": _requests(task.resreq)} if not task.best_effort else {}
    if template.host_ports:
        container["ports"] = [{"containerPort": p, "hostPort": p} for p in template.host_ports]
    spec: dict[str, Any] = {"containers": [container]}
    optional: dict[str, Any] = {
        "volumes": list(template.volumes),
        "nodeSelector": dict(template.node_selector),
        "nodeName": task.node_name if task.status is not TaskStatus.PENDING else "",
        "affinity": dict(template.affinity),
        "schedulerName": "volcano",
        "tolerations": [_toleration_json(t) for t in template.tolerations],
        "priorityClassName": task.priority_class_name,
        "priority": task.priority,
        "preemptionPolicy": task.preemption_policy,
        "topologySpreadConstraints": list(template.topology_spread_constraints),
        "schedulingGates": [{"name": "volcano.sh/gated"}] if task.scheduling_gated else [],
    }
    spec.update({k: v for k, v in optional.items() if v or k == "priority"})
    status: dict[str, Any] = {"phase": _POD_PHASES.get(task.status, "Pending")}
    if task.nominated_node_name:
        status["nominatedNodeName"] = task.nominated_node_name
    return {
        "metadata": _meta(
            task.name,
            task.namespace,
            uid=task.uid,
            labels=template.labels,
            annotations=task.annotations,
            created=task.creation_timestamp,
        ),
        "spec": spec,
        "status": status,
    }


def task_json(task: TaskInfo) -> dict[str, Any]:
    """Return ``api.TaskInfo`` as Go's ``json.Marshal`` writes it."""
    return {
        "UID": task.uid,
        "Job": task.job,
        "Name": task.name,
        "Namespace": task.namespace,
        "TaskRole": task.role,
        "Resreq": resource_json(task.resreq),
        "InitResreq": resource_json(task.init_resreq or task.resreq),
        "DRAResreq": None,
        "ResourceClaimKeys": None,
        "ResourceClaimDRAResreq": None,
        # TransactionContext, embedded: its fields are inlined.
        "NodeName": task.node_name,
        "EvictionOccurred": False,
        "JobAllocatedHyperNode": "",
        "Status": STATUS_VALUES[task.status],
        "LastTransaction": None,
        "Priority": task.priority,
        "VolumeReady": False,
        "Preemptable": task.preemptable,
        "BestEffort": task.best_effort,
        "HasRestartableInitContainer": False,
        "SchGated": task.scheduling_gated,
        "RevocableZone": "",
        "NumaInfo": None,
        "Pod": _pod_json(task),
        "PodAnnotations": dict(task.annotations) or None,
        "CustomBindErrHandlerSucceeded": False,
    }


def node_json(node: NodeInfo, *, with_tasks: bool = True) -> dict[str, Any]:
    """Return ``api.NodeInfo`` as Go writes it (its tasks included, as Volcano sends them)."""
    allocatable = node.allocatable
    kube_spec: dict[str, Any] = {}
    if node.unschedulable:
        kube_spec["unschedulable"] = True
    if node.taints:
        kube_spec["taints"] = [
            {k: v for k, v in (("key", t.key), ("value", t.value), ("effect", t.effect)) if v}
            for t in node.taints
        ]
    listed = format_resources(allocatable.as_dict())
    attached = node.arrays is not None
    return {
        "Name": node.name,
        "Node": {
            "metadata": _meta(node.name, labels=node.labels, annotations=node.annotations),
            "spec": kube_spec,
            "status": {"capacity": listed, "allocatable": listed},
        },
        "State": {"Phase": _NODE_READY, "Reason": ""},
        "Releasing": resource_json(node.releasing if attached else Resource()),
        "Pipelined": resource_json(node.pipelined if attached else Resource()),
        "Idle": resource_json(node.idle if attached else allocatable),
        "Used": resource_json(node.used if attached else Resource()),
        "Allocatable": resource_json(allocatable),
        "Capacity": resource_json(allocatable),
        "ResourceUsage": None,
        "Tasks": {uid: task_json(t) for uid, t in node.tasks.items()} if with_tasks else {},
        "NumaInfo": None,
        "UnassignedNumaPods": None,
        "NumaSchedulerInfo": None,
        "RevocableZone": "",
        "Others": None,
        "OversubscriptionNode": False,
        "OfflineJobEvicting": False,
        "OversubscriptionResource": None,
        "ImageStates": None,
        "Generation": 0,
        "BindGeneration": 0,
    }


def _pod_group_json(job: JobInfo) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if job.min_available:
        spec["minMember"] = job.min_available
    if job.task_min_available:
        spec["minTaskMember"] = dict(job.task_min_available)
    spec["queue"] = job.queue
    if job.priority_class_name:
        spec["priorityClassName"] = job.priority_class_name
    if job.min_resources is not None:
        spec["minResources"] = format_resources(job.min_resources.as_dict())
    status: dict[str, Any] = {"phase": str(job.phase)}
    if job.conditions:
        status["conditions"] = [
            {"type": c.type, "status": c.status, "reason": c.reason, "message": c.message}
            for c in job.conditions
        ]
    return {
        "metadata": _meta(
            job.name,
            job.namespace,
            uid=job.uid,
            annotations=job.annotations,
            created=job.creation_timestamp,
        ),
        "spec": spec,
        "status": status,
        "Version": "v1beta1",
    }


def job_json(job: JobInfo) -> dict[str, Any]:
    """Return ``api.JobInfo`` as Go writes it (tasks by uid and by status, PodGroup inside)."""
    by_status: dict[str, dict[str, Any]] = {}
    tasks: dict[str, Any] = {}
    for uid, task in job.tasks.items():
        body = task_json(task)
        tasks[uid] = body
        by_status.setdefault(str(STATUS_VALUES[task.status]), {})[uid] = body
    created = format_time(job.creation_timestamp) if job.creation_timestamp else None
    return {
        "UID": job.uid,
        "PgUID": job.uid,
        "Name": job.name,
        "Namespace": job.namespace,
        "Queue": job.queue,
        "Priority": job.priority,
        "MinAvailable": job.min_available,
        "WaitingTime": None,
        "JobFitErrors": job.job_fit_error,
        "NodesFitErrors": None,
        "AllocatedHyperNode": "",
        "NetworkTopology": None,
        "SubJobs": None,
        "TaskToSubJob": None,
        "MinSubJobs": None,
        "TaskStatusIndex": by_status,
        "Tasks": tasks,
        "TaskMinAvailable": dict(job.task_min_available) or None,
        "TaskMinAvailableTotal": sum(job.task_min_available.values()),
        "Allocated": resource_json(
            sum(
                (t.resreq for t in job.tasks.values() if STATUS_VALUES[t.status] & _ALLOCATED),
                Resource(),
            )
        ),
        "TotalRequest": resource_json(sum((t.resreq for t in job.tasks.values()), Resource())),
        "CreationTimestamp": created,
        "PodGroup": _pod_group_json(job),
        "ScheduleStartTimestamp": None,
        "Preemptable": False,
        "RevocableZone": "",
        "Budget": None,
    }


# Allocated, Binding, Bound, Running: Volcano's AllocatedStatus(), as a mask of status bits.
_ALLOCATED = sum(
    STATUS_VALUES[s]
    for s in (TaskStatus.ALLOCATED, TaskStatus.BINDING, TaskStatus.BOUND, TaskStatus.RUNNING)
)


def queue_json(queue: QueueInfo) -> dict[str, Any]:
    """Return ``api.QueueInfo`` as Go writes it (the Queue object inside)."""
    spec: dict[str, Any] = {"weight": queue.weight}
    if queue.capability is not None:
        spec["capability"] = format_resources(queue.capability.as_dict())
    spec["reclaimable"] = queue.reclaimable
    if queue.guarantee is not None:
        spec["guarantee"] = {"resource": format_resources(queue.guarantee.as_dict())}
    if queue.parent:
        spec["parent"] = queue.parent
    if queue.deserved is not None:
        spec["deserved"] = format_resources(queue.deserved.as_dict())
    if queue.priority:
        spec["priority"] = queue.priority
    return {
        "UID": queue.name,
        "Name": queue.name,
        "Weight": queue.weight,
        "Weights": "",
        "Hierarchy": "",
        "Queue": {
            "metadata": _meta(
                queue.name, annotations=queue.annotations, created=queue.creation_timestamp
            ),
            "spec": spec,
            "status": {"state": str(queue.state)},
        },
    }


# --- reading ---------------------------------------------------------------------------------
def _lookup(answer: object, key: str) -> object:
    """Return ``answer[key]`` matched as Go matches struct fields (exact, then any case)."""
    if answer is None:  # ``null`` decodes into a struct as nothing at all
        return None
    if not isinstance(answer, dict):
        raise WireError(f"json: cannot unmarshal {_kind(answer)} into the response object")
    if key in answer:
        return answer[key]
    folded = key.casefold()
    return next((v for k, v in answer.items() if k.casefold() == folded), None)


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else "null"


def _mismatch(value: object, key: str, want: str) -> WireError:
    return WireError(f"json: cannot unmarshal {_kind(value)} into field {key} of type {want}")


def read_str(answer: object, key: str) -> str:
    """Return the string field ``key`` ('' when absent or null)."""
    value = _lookup(answer, key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _mismatch(value, key, "string")
    return value


def read_int(answer: object, key: str) -> int:
    """Return the integer field ``key`` (0 when absent or null)."""
    value = _lookup(answer, key)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _mismatch(value, key, "int")
    if isinstance(value, float) and not value.is_integer():
        raise _mismatch(value, key, "int")
    return int(value)


def read_bool(answer: object, key: str) -> bool:
    """Return the boolean field ``key`` (false when absent or null)."""
    value = _lookup(answer, key)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise _mismatch(value, key, "bool")
    return value


def read_scores(answer: object, key: str) -> dict[str, float] | None:
    """Return the ``map[string]float64`` field ``key``; None when absent or null (Go's nil map)."""
    value = _lookup(answer, key)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _mismatch(value, key, "map[string]float64")
    scores: dict[str, float] = {}
    for name, score in value.items():
        if isinstance(score, bool) or not isinstance(score, int | float):
            raise _mismatch(score, f"{key}.{name}", "float64")
        scores[str(name)] = float(score)
    return scores


def read_victim_uids(answer: object, key: str) -> list[str] | None:
    """Return the ``UID`` of each task of the ``[]*TaskInfo`` field ``key`` (None: nil slice)."""
    value = _lookup(answer, key)
    if value is None:
        return None
    if not isinstance(value, list):
        raise _mismatch(value, key, "[]*api.TaskInfo")
    uids: list[str] = []
    for item in value:
        if item is None:
            continue
        uids.append(read_str(item, "UID"))
    return uids
