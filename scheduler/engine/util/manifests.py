"""Kubernetes/Volcano manifests (Node, Queue, PodGroup, Pod, PriorityClass) → snapshot objects.

Volcano's counterpart: the cache's conversion of informer objects (``pkg/scheduler/cache``,
``api/pod_info.go``, ``api/job_info.go``). Each reader checks its fields against what Kubernetes
defines and raises ``ManifestError`` naming the object and field for anything unknown or
malformed; fields Kubernetes has that the scheduler ignores are accepted and ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from apis.errors import ManifestError
from scheduler.engine.api.devices.requests import read_device_containers
from scheduler.engine.api.node_info import NodeInfo, Taint
from scheduler.engine.api.numa import read_numa_task
from scheduler.engine.api.queue_info import NodeGroupTerms, QueueAffinity, QueueInfo
from scheduler.engine.api.resource import PODS, Resource
from scheduler.engine.api.task_info import TaskInfo, TaskTemplate, Toleration
from scheduler.engine.api.types import QueueState, TaskStatus

__all__ = [
    "GROUP_ANNOTATION",
    "check_keys",
    "mapping",
    "parse_time",
    "pod_limits",
    "read_node",
    "read_pod",
    "read_queue",
    "read_queue_affinity",
]

GROUP_ANNOTATION = "scheduling.k8s.io/group-name"
TASK_SPEC_KEY = "volcano.sh/task-spec"
TASK_PRIORITY_KEY = "volcano.sh/task-priority"
PREEMPTABLE_KEY = "volcano.sh/preemptable"

METADATA_KEYS = frozenset(
    {"name", "namespace", "labels", "annotations", "creationTimestamp", "uid", "deletionTimestamp",
     "generateName", "resourceVersion", "ownerReferences", "finalizers", "generation"}
)  # fmt: skip
POD_SPEC_KEYS = frozenset(
    {"schedulerName", "nodeName", "priority", "priorityClassName", "preemptionPolicy",
     "nodeSelector", "affinity", "tolerations", "topologySpreadConstraints", "containers",
     "initContainers", "overhead", "volumes", "restartPolicy", "schedulingGates",
     "serviceAccountName", "terminationGracePeriodSeconds", "hostNetwork", "dnsPolicy",
     "imagePullSecrets", "securityContext", "activeDeadlineSeconds", "hostname", "subdomain"}
)  # fmt: skip
CONTAINER_KEYS = frozenset(
    {"name", "image", "command", "args", "resources", "ports", "env", "volumeMounts",
     "imagePullPolicy", "workingDir", "restartPolicy", "securityContext", "livenessProbe",
     "readinessProbe", "startupProbe", "lifecycle", "envFrom", "stdin", "tty"}
)  # fmt: skip


def mapping(value: object, field: str) -> Mapping[str, Any]:
    """Return ``value`` as a mapping (None → empty) or raise naming ``field``."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ManifestError(field, f"expected a mapping, got {type(value).__name__}")
    return value


def check_keys(value: Mapping[str, Any], allowed: frozenset[str], field: str) -> None:
    """Raise naming the first key of ``value`` that is not in ``allowed``."""
    for key in value:
        if key not in allowed:
            raise ManifestError(f"{field}.{key}", "unknown field")


def _str_map(value: object, field: str) -> dict[str, str]:
    return {str(k): str(v) for k, v in mapping(value, field).items()}


def _int(value: object, field: str, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise ManifestError(field, f"expected an integer, got {value!r}")
    return value


def _bool(value: object, field: str, default: bool) -> bool:
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ManifestError(field, f"expected true or false, got {value!r}")
    return value


def parse_time(value: object, field: str) -> datetime | None:
    """Return an RFC 3339 timestamp as an aware datetime (None when absent)."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if not isinstance(value, str):
        raise ManifestError(field, f"expected an RFC 3339 time, got {value!r}")
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ManifestError(field, f"expected an RFC 3339 time, got {value!r}") from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _list(value: object, field: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ManifestError(field, f"expected a list, got {type(value).__name__}")
    return value


def read_node(obj: Mapping[str, Any], meta: Mapping[str, Any], field: str) -> NodeInfo | None:
    """Return the node, or None when its Ready condition is not True (Volcano drops it)."""
    check_keys(obj, frozenset({"apiVersion", "kind", "metadata", "spec", "status"}), field)
    spec = mapping(obj.get("spec"), f"{field}.spec")
    status = mapping(obj.get("status"), f"{field}.status")
    check_keys(
        spec, frozenset({"unschedulable", "taints", "podCIDR", "providerID"}), f"{field}.spec"
    )
    check_keys(
        status,
        frozenset({"allocatable", "capacity", "conditions", "images", "nodeInfo", "addresses"}),
        f"{field}.status",
    )
    allocatable = status.get("allocatable", status.get("capacity"))
    taints = []
    for i, raw in enumerate(_list(spec.get("taints"), f"{field}.spec.taints")):
        t = mapping(raw, f"{field}.spec.taints[{i}]")
        check_keys(
            t, frozenset({"key", "value", "effect", "timeAdded"}), f"{field}.spec.taints[{i}]"
        )
        effect = str(t.get("effect", ""))
        if effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
            raise ManifestError(f"{field}.spec.taints[{i}].effect", f"unknown effect {effect!r}")
        taints.append(Taint(str(t.get("key", "")), str(t.get("value", "")), effect))
    for i, raw in enumerate(_list(status.get("conditions"), f"{field}.status.conditions")):
        cond = mapping(raw, f"{field}.status.conditions[{i}]")
        if cond.get("type") == "Ready" and str(cond.get("status")) != "True":
            return None
    return NodeInfo(
        name=str(meta["name"]),
        allocatable=Resource.parse(
            mapping(allocatable, f"{field}.status.allocatable"), field=f"{field}.status.allocatable"
        ),
        labels=_str_map(meta.get("labels"), f"{field}.metadata.labels"),
        annotations=_str_map(meta.get("annotations"), f"{field}.metadata.annotations"),
        taints=tuple(taints),
        unschedulable=_bool(spec.get("unschedulable"), f"{field}.spec.unschedulable", False),
        capacity=(
            None
            if status.get("capacity") is None
            else Resource.parse(
                mapping(status.get("capacity"), f"{field}.status.capacity"),
                field=f"{field}.status.capacity",
            )
        ),
    )


def read_queue(obj: Mapping[str, Any], meta: Mapping[str, Any], field: str) -> QueueInfo:
    """Return the queue a ``scheduling.volcano.sh/v1beta1`` Queue describes."""
    check_keys(obj, frozenset({"apiVersion", "kind", "metadata", "spec", "status"}), field)
    spec = mapping(obj.get("spec"), f"{field}.spec")
    check_keys(
        spec,
        frozenset({"weight", "capability", "deserved", "guarantee", "reclaimable", "parent",
                   "priority", "extendClusters", "affinity", "type"}),
        f"{field}.spec",
    )  # fmt: skip
    status = mapping(obj.get("status"), f"{field}.status")
    state = str(status.get("state", "Open"))
    if state not in QueueState.__members__.values():
        raise ManifestError(f"{field}.status.state", f"unknown state {state!r}")
    guarantee = mapping(spec.get("guarantee"), f"{field}.spec.guarantee")
    check_keys(guarantee, frozenset({"resource"}), f"{field}.spec.guarantee")

    def res(value: object, path: str) -> Resource | None:
        return None if value is None else Resource.parse(mapping(value, path), field=path)

    return QueueInfo(
        name=str(meta["name"]),
        weight=_int(spec.get("weight"), f"{field}.spec.weight", 1),
        capability=res(spec.get("capability"), f"{field}.spec.capability"),
        deserved=res(spec.get("deserved"), f"{field}.spec.deserved"),
        guarantee=res(guarantee.get("resource"), f"{field}.spec.guarantee.resource"),
        reclaimable=_bool(spec.get("reclaimable"), f"{field}.spec.reclaimable", True),
        state=QueueState(state),
        parent=str(spec.get("parent") or ""),
        priority=_int(spec.get("priority"), f"{field}.spec.priority", 0),
        creation_timestamp=parse_time(meta.get("creationTimestamp"), f"{field}.metadata"),
        annotations=_str_map(meta.get("annotations"), f"{field}.metadata.annotations"),
        affinity=read_queue_affinity(spec.get("affinity"), f"{field}.spec.affinity"),
    )


_NODE_GROUP_TERMS = frozenset(
    {"requiredDuringSchedulingIgnoredDuringExecution",
     "preferredDuringSchedulingIgnoredDuringExecution"}
)  # fmt: skip


def _node_group_terms(value: object, field: str) -> NodeGroupTerms | None:
    if value is None:
        return None
    terms = mapping(value, field)
    check_keys(terms, _NODE_GROUP_TERMS, field)

    def names(key: str) -> tuple[str, ...]:
        items = _list(terms.get(key), f"{field}.{key}")
        for i, item in enumerate(items):
            if not isinstance(item, str):
                raise ManifestError(
                    f"{field}.{key}[{i}]", f"expected a node group name, got {item!r}"
                )
        return tuple(items)

    return NodeGroupTerms(
        required=names("requiredDuringSchedulingIgnoredDuringExecution"),
        preferred=names("preferredDuringSchedulingIgnoredDuringExecution"),
    )


def read_queue_affinity(value: object, field: str) -> QueueAffinity | None:
    """Return a Queue's ``spec.affinity`` (None when absent; ``{}`` is an empty affinity)."""
    if value is None:
        return None
    affinity = mapping(value, field)
    check_keys(affinity, frozenset({"nodeGroupAffinity", "nodeGroupAntiAffinity"}), field)
    return QueueAffinity(
        node_group_affinity=_node_group_terms(
            affinity.get("nodeGroupAffinity"), f"{field}.nodeGroupAffinity"
        ),
        node_group_anti_affinity=_node_group_terms(
            affinity.get("nodeGroupAntiAffinity"), f"{field}.nodeGroupAntiAffinity"
        ),
    )


def _requests(container: Mapping[str, Any], field: str) -> Resource:
    check_keys(container, CONTAINER_KEYS, field)
    resources = mapping(container.get("resources"), f"{field}.resources")
    check_keys(resources, frozenset({"requests", "limits", "claims"}), f"{field}.resources")
    requests = dict(mapping(resources.get("requests"), f"{field}.resources.requests"))
    # Kubernetes defaults a missing request to its limit.
    for name, value in mapping(resources.get("limits"), f"{field}.resources.limits").items():
        requests.setdefault(name, value)
    return Resource.parse(requests, field=f"{field}.resources.requests")


def pod_request(spec: Mapping[str, Any], field: str) -> Resource:
    """Return containers' sum max'ed with each init container, plus overhead and ``pods: 1``."""
    total = Resource()
    for i, c in enumerate(_list(spec.get("containers"), f"{field}.containers")):
        total = total + _requests(
            mapping(c, f"{field}.containers[{i}]"), f"{field}.containers[{i}]"
        )
    sidecars = Resource()
    for i, c in enumerate(_list(spec.get("initContainers"), f"{field}.initContainers")):
        path = f"{field}.initContainers[{i}]"
        req = _requests(mapping(c, path), path)
        if mapping(c, path).get("restartPolicy") == "Always":
            sidecars = sidecars + req
            total = total + req
        else:
            total = total.max(req + sidecars)
    overhead = spec.get("overhead")
    if overhead is not None:
        total = total + Resource.parse(
            mapping(overhead, f"{field}.overhead"), field=f"{field}.overhead"
        )
    return total + Resource({PODS: 1000})


def _limits(container: Mapping[str, Any], field: str) -> Resource:
    resources = mapping(container.get("resources"), f"{field}.resources")
    return Resource.parse(
        mapping(resources.get("limits"), f"{field}.resources.limits"),
        field=f"{field}.resources.limits",
    )


def pod_limits(spec: Mapping[str, Any], field: str) -> Resource:
    """Return the pod's limits as Volcano's ``GetPodResourceLimit``: containers summed, max'ed
    with each init container (sidecars added), plus overhead on what is limited at all."""
    total = Resource()
    for i, c in enumerate(_list(spec.get("containers"), f"{field}.containers")):
        total = total + _limits(mapping(c, f"{field}.containers[{i}]"), f"{field}.containers[{i}]")
    sidecars = Resource()
    for i, c in enumerate(_list(spec.get("initContainers"), f"{field}.initContainers")):
        path = f"{field}.initContainers[{i}]"
        limit = _limits(mapping(c, path), path)
        if mapping(c, path).get("restartPolicy") == "Always":
            sidecars = sidecars + limit
            total = total + limit
        else:
            total = total.max(limit + sidecars)
    overhead = spec.get("overhead")
    if overhead is not None:
        extra = Resource.parse(mapping(overhead, f"{field}.overhead"), field=f"{field}.overhead")
        total = total + Resource({n: extra.get(n) for n in total.names() if total.get(n)})
    return total


def _tolerations(value: object, field: str) -> tuple[Toleration, ...]:
    out = []
    for i, raw in enumerate(_list(value, field)):
        t = mapping(raw, f"{field}[{i}]")
        check_keys(
            t,
            frozenset({"key", "operator", "value", "effect", "tolerationSeconds"}),
            f"{field}[{i}]",
        )
        op = str(t.get("operator", "Equal"))
        if op not in ("Equal", "Exists"):
            raise ManifestError(f"{field}[{i}].operator", f"unknown operator {op!r}")
        out.append(
            Toleration(str(t.get("key", "")), op, str(t.get("value", "")), str(t.get("effect", "")))
        )
    return tuple(out)


def read_pod(
    obj: Mapping[str, Any],
    meta: Mapping[str, Any],
    field: str,
    *,
    priority_classes: Mapping[str, tuple[int, str]],
    default_priority: int,
) -> TaskInfo:
    """Return the task a v1 Pod describes (its job is set when it joins one)."""
    check_keys(obj, frozenset({"apiVersion", "kind", "metadata", "spec", "status"}), field)
    spec = mapping(obj.get("spec"), f"{field}.spec")
    check_keys(spec, POD_SPEC_KEYS, f"{field}.spec")
    status = mapping(obj.get("status"), f"{field}.status")
    phase = str(status.get("phase", "Pending"))
    node_name = str(spec.get("nodeName") or "")
    if phase not in ("Pending", "Running", "Succeeded", "Failed", "Unknown"):
        raise ManifestError(f"{field}.status.phase", f"unknown phase {phase!r}")
    if meta.get("deletionTimestamp") and phase in ("Pending", "Running"):
        task_status = TaskStatus.RELEASING
    elif phase == "Pending":
        task_status = TaskStatus.BOUND if node_name else TaskStatus.PENDING
    else:
        task_status = TaskStatus(phase)
    labels = _str_map(meta.get("labels"), f"{field}.metadata.labels")
    annotations = _str_map(meta.get("annotations"), f"{field}.metadata.annotations")
    class_name = str(spec.get("priorityClassName") or "")
    if class_name and class_name not in priority_classes:
        raise ManifestError(
            f"{field}.spec.priorityClassName", f"unknown PriorityClass {class_name!r}"
        )
    class_value, class_policy = priority_classes.get(class_name, (default_priority, ""))
    priority = _int(spec.get("priority"), f"{field}.spec.priority", class_value)
    if TASK_PRIORITY_KEY in annotations:
        try:
            priority = int(annotations[TASK_PRIORITY_KEY])
        except ValueError as exc:
            raise ManifestError(
                f"{field}.metadata.annotations.{TASK_PRIORITY_KEY}", "expected an integer"
            ) from exc
    preemptable_text = annotations.get(PREEMPTABLE_KEY, labels.get(PREEMPTABLE_KEY, "true"))
    namespace = str(meta.get("namespace") or "default")
    containers = _list(spec.get("containers"), f"{field}.spec.containers")
    ports = [
        int(p["hostPort"])
        for c in containers
        if isinstance(c, Mapping)
        for p in _list(c.get("ports"), f"{field}.spec.containers.ports")
        if isinstance(p, Mapping) and p.get("hostPort")
    ]
    template = TaskTemplate(
        namespace=namespace,
        labels=labels,
        node_selector=_str_map(spec.get("nodeSelector"), f"{field}.spec.nodeSelector"),
        affinity=dict(mapping(spec.get("affinity"), f"{field}.spec.affinity")),
        tolerations=_tolerations(spec.get("tolerations"), f"{field}.spec.tolerations"),
        topology_spread_constraints=tuple(
            dict(mapping(c, f"{field}.spec.topologySpreadConstraints[{i}]"))
            for i, c in enumerate(
                _list(
                    spec.get("topologySpreadConstraints"), f"{field}.spec.topologySpreadConstraints"
                )
            )
        ),
        host_ports=tuple(sorted(ports)),
        images=tuple(str(c.get("image", "")) for c in containers if isinstance(c, Mapping)),
        volumes=tuple(_list(spec.get("volumes"), f"{field}.spec.volumes")),
    )
    return TaskInfo(
        name=str(meta["name"]),
        namespace=namespace,
        job="",
        resreq=pod_request(spec, f"{field}.spec"),
        limits=pod_limits(spec, f"{field}.spec"),
        status=task_status,
        node_name=node_name,
        priority=priority,
        role=annotations.get(TASK_SPEC_KEY, labels.get(TASK_SPEC_KEY, "")),
        preemptable=preemptable_text.strip().lower() in ("true", "1", "t"),
        preemption_policy=str(spec.get("preemptionPolicy") or class_policy),
        priority_class_name=class_name,
        nominated_node_name=str(status.get("nominatedNodeName") or ""),
        scheduling_gated=bool(spec.get("schedulingGates")),
        creation_timestamp=parse_time(meta.get("creationTimestamp"), f"{field}.metadata"),
        annotations=annotations,
        template=template,
        scheduled_at=_scheduled_at(status, f"{field}.status"),
        device_containers=read_device_containers(spec, f"{field}.spec"),
        numa=read_numa_task(spec, annotations, f"{field}.spec"),
    )


def _scheduled_at(status: Mapping[str, Any], field: str) -> datetime | None:
    """Return when the first ``PodScheduled: "True"`` condition last turned (None: none)."""
    for i, raw in enumerate(_list(status.get("conditions"), f"{field}.conditions")):
        cond = mapping(raw, f"{field}.conditions[{i}]")
        if cond.get("type") == "PodScheduled" and str(cond.get("status")) == "True":
            return parse_time(
                cond.get("lastTransitionTime"), f"{field}.conditions[{i}].lastTransitionTime"
            )
    return None
