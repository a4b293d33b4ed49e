"""Pod manifests (v1): the spec verbatim, the scheduler's columns derived from it.

Volcano ties a pod to its job, task and gang through annotations
(``volcano.sh/task-spec``, ``volcano.sh/task-index``, ``scheduling.k8s.io/group-name``);
loading reads them into columns and dumping writes them back, so both forms agree.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, ClassVar

from apis.wire import Fields, Manifest, format_time
from core.container_lifecycle import grace_seconds
from core.manifests.pod_status import container_statuses, pod_conditions
from core.manifests.pod_template import pod_requests, read_pod_spec
from core.models import Node, Pod, PodPhase
from core.network import internal_ip
from core.owners import read_owner, resolve_job, with_job_owner
from kube.manifest_kinds import Kind, Loaded

__all__ = ["PodKind"]

TASK_SPEC = "volcano.sh/task-spec"
TASK_INDEX = "volcano.sh/task-index"
GROUP_NAME = "scheduling.k8s.io/group-name"
_COLUMNS_IN_SPEC = ("nodeName", "priority", "schedulerName")


def _pod_groups() -> Any:
    """Return the PodGroups' manager, reached through ``Pod.pod_group`` (queues is above core)."""
    group_model = Pod._meta.get_field("pod_group").related_model
    assert isinstance(group_model, type), "Pod.pod_group is not resolved yet"
    return group_model._default_manager


class PodKind(Kind):
    """``v1`` Pod."""

    api_version = "v1"
    kind = "Pod"
    resource = "pod"
    model = Pod
    spec_fields = (
        "job",
        "task_name",
        "task_index",
        "pod_group",
        "node",
        "spec",
        "requests",
        "cpu_milli",
        "memory_milli",
        "gpu_milli",
        "priority",
        "scheduler_name",
    )
    wire_paths: ClassVar[dict[str, str]] = {"name": "metadata.name"}

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        pod: Pod = loaded.instance
        loaded.owner_name = read_owner(meta)
        annotations = dict(pod.annotations)
        pod.task_name = annotations.pop(TASK_SPEC, "")
        index = annotations.pop(TASK_INDEX, "0")
        if not index.isdigit():
            raise meta.error(f"annotations.{TASK_INDEX}", f"expected digits, got {index!r}")
        pod.task_index = int(index)
        pod._group_name = annotations.pop(GROUP_NAME, "")  # type: ignore[attr-defined]
        pod.annotations = annotations
        spec = doc.obj("spec")
        pod._node_name = spec.string("nodeName")  # type: ignore[attr-defined]
        pod.priority = spec.integer("priority", 0)
        pod.scheduler_name = spec.string("schedulerName", "volcano")
        checked = read_pod_spec(spec)
        pod.spec = {key: value for key, value in checked.items() if key not in _COLUMNS_IN_SPEC}
        pod.requests = pod_requests(pod.spec)
        pod.cpu_milli = pod.requests.get("cpu", 0)
        pod.memory_milli = pod.requests.get("memory", 0)
        pod.gpu_milli = pod.requests.get("nvidia.com/gpu", 0)
        self.read_status(doc.obj("status"), pod)

    def read_status(self, status: Fields, pod: Pod) -> None:
        """Read phase, reason, message, conditions, nominee, start time, first container's end."""
        pod.phase = status.string("phase", PodPhase.PENDING)
        if pod.phase not in PodPhase.values:
            raise status.error("phase", f"unsupported value {pod.phase!r}")
        pod.reason = status.string("reason")
        pod.message = status.string("message")
        pod.start_time = status.time("startTime")
        pod.conditions = status.json("conditions", [])
        pod.nominated_node_name = status.string("nominatedNodeName")
        pod.pod_ip = status.string("podIP")
        # The node's address and the lists are derived (``write``), not kept.
        status.ignore("podIPs", "hostIP", "hostIPs")
        for container in status.objects("containerStatuses"):
            # What this server writes reads back (``kubectl get -o yaml | kubectl replace``);
            # only the end of the first container is kept, the rest is the kubelet's to say.
            container.string("name")
            container.ignore("image", "imageID", "containerID", "ready", "started", "lastState")
            pod.restart_count = container.integer("restartCount", 0, minimum=0)
            state = container.obj("state")
            state.ignore("waiting", "running")
            terminated = state.obj("terminated")
            pod.exit_code = terminated.optional_integer("exitCode")
            pod.finish_time = terminated.time("finishedAt")
            terminated.ignore("reason", "message", "startedAt", "signal", "containerID")
            terminated.done()
            state.done()
            container.done()
        status.done()

    def resolve(self, loaded: Loaded) -> None:
        resolve_job(loaded)
        pod = loaded.instance
        group_name = getattr(pod, "_group_name", "")
        if group_name:
            pod.pod_group = _pod_groups().filter(namespace=pod.namespace, name=group_name).first()
            if pod.pod_group is None:
                # Kept as written: the pod waits for that group (the PodGroup controller leaves
                # a pod that names one alone, and the scheduler places only pods of a group).
                pod.annotations = {**pod.annotations, GROUP_NAME: group_name}
        node_name = getattr(pod, "_node_name", "")
        if node_name:
            pod.node = Node.objects.filter(name=node_name).first()

    def admit(self, loaded: Loaded, existing: Any | None) -> None:
        """Refuse what Volcano's pod webhook refuses (``core.admission``)."""
        # Admission reads manifests with this kind: the two modules need each other.
        from core.admission import admit_pod

        admit_pod(loaded, old=existing)

    def write_metadata(self, instance: Any) -> Manifest:
        meta = super().write_metadata(instance)
        annotations = dict(instance.annotations)
        if instance.task_name:
            annotations[TASK_SPEC] = instance.task_name
            annotations[TASK_INDEX] = str(instance.task_index)
        group = instance.pod_group.name if instance.pod_group_id else ""
        if group := group or getattr(instance, "_group_name", ""):
            annotations[GROUP_NAME] = group
        if annotations:
            meta["annotations"] = dict(sorted(annotations.items()))
        if instance.deletion_time is not None and "deletionTimestamp" not in meta:
            # Graceful deletion: deletionTimestamp is when the grace period ends (the API
            # server's now + grace), the pod Running until its containers exit.
            grace = grace_seconds(instance.spec, instance.deletion_grace_seconds)
            meta["deletionTimestamp"] = format_time(
                instance.deletion_time + dt.timedelta(seconds=grace)
            )
            meta["deletionGracePeriodSeconds"] = grace
        return with_job_owner(meta, instance)

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        pod: Pod = instance
        spec: Manifest = dict(pod.spec)
        spec["schedulerName"] = pod.scheduler_name
        if pod.priority:
            spec["priority"] = pod.priority
        node = pod.node_name or getattr(pod, "_node_name", "")
        if node:
            spec["nodeName"] = node
        status: Manifest = {"phase": pod.phase}
        if pod.reason:
            status["reason"] = pod.reason
        if pod.message:
            status["message"] = pod.message
        if pod.nominated_node_name:
            status["nominatedNodeName"] = pod.nominated_node_name
        if conditions := pod_conditions(pod):
            status["conditions"] = conditions
        if pod.start_time is not None:
            if host := _host_ip(pod):
                status["hostIP"] = host
                status["hostIPs"] = [{"ip": host}]
            if pod.pod_ip:
                status["podIP"] = pod.pod_ip
                status["podIPs"] = [{"ip": pod.pod_ip}]
            status["startTime"] = format_time(pod.start_time)
        if statuses := container_statuses(pod):
            status["containerStatuses"] = statuses
        return {"spec": spec, "status": status}


def _host_ip(pod: Pod) -> str:
    """Return ``status.hostIP``: the ``InternalIP`` of the pod's node, once the kubelet took it."""
    if pod.node_id is None or not pod.node_name:
        return ""
    return internal_ip(pod.node)  # type: ignore[arg-type]  # node_name found the node
