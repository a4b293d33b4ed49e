"""Node (v1) as a manifest: labels, taints, unschedulable, capacity, allocatable and Ready."""

from __future__ import annotations

import ipaddress
from typing import Any

from apis.wire import Fields, Manifest, format_resources, format_time
from core.models import Node
from kube.admission_causes import Causes
from kube.manifest_kinds import Kind, Loaded

__all__ = ["IGNORED_STATUS", "NODE_INFO_FIELDS", "SIMULATED_NODE", "NodeKind"]

# NodeSystemInfo's fields: Kubernetes always writes every one ("" when unknown), and the
# official Python client refuses a node whose nodeInfo lacks any of them.
NODE_INFO_FIELDS = (
    "machineID", "systemUUID", "bootID", "kernelVersion", "osImage", "containerRuntimeVersion",
    "kubeletVersion", "kubeProxyVersion", "operatingSystem", "architecture",
)  # fmt: skip
# What a node without its own nodeInfo reports: the simulated kubelet, at the API's version.
SIMULATED_NODE = {
    "kubeletVersion": "v1.32.0-volcano-sim",
    "containerRuntimeVersion": "simulated://1.0",
    "operatingSystem": "linux",
    "architecture": "amd64",
    "osImage": "Volcano console simulated node",
}
# NodeStatus fields a kubelet writes that nothing here reads: accepted, so that a node dumped
# from a real cluster (`kubectl get node -o yaml`) applies unchanged.
IGNORED_STATUS = (
    "phase", "daemonEndpoints", "images", "volumesInUse", "volumesAttached", "config",
    "runtimeHandlers", "features",
)  # fmt: skip


class NodeKind(Kind):
    """``v1`` Node: labels, taints, unschedulable, capacity/allocatable and Ready."""

    api_version = "v1"
    kind = "Node"
    resource = "node"
    model = Node
    namespaced = False
    spec_fields = (
        "taints",
        "unschedulable",
        "capacity",
        "allocatable",
        "ready",
        "ready_reason",
        "ready_message",
        "node_info",
        "addresses",
        "pod_cidr",
    )

    def read(self, doc: Fields, meta: Fields, loaded: Loaded) -> None:
        node: Node = loaded.instance
        spec = doc.obj("spec")
        node.unschedulable = spec.boolean("unschedulable", False)
        node.taints = []
        for taint in spec.objects("taints"):
            item = {"key": taint.string("key", required=True)}
            if value := taint.string("value"):
                item["value"] = value
            item["effect"] = taint.string("effect", required=True)
            if item["effect"] not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
                raise taint.error("effect", f"unsupported value {item['effect']!r}")
            taint.done()
            node.taints.append(item)
        node.pod_cidr = spec.string("podCIDR")
        cidrs = spec.strings("podCIDRs")
        if cidrs and node.pod_cidr and cidrs[0] != node.pod_cidr:
            raise spec.error("podCIDRs[0]", "must match podCIDR")
        node.pod_cidr = node.pod_cidr or (cidrs[0] if cidrs else "")
        if node.pod_cidr:
            try:
                ipaddress.ip_network(node.pod_cidr, strict=False)
            except ValueError as exc:
                raise spec.error("podCIDR", f"invalid CIDR {node.pod_cidr!r}") from exc
        spec.ignore("providerID", "configSource", "externalID")
        spec.done()
        status = doc.obj("status")
        node.capacity = status.resources("capacity")
        node.allocatable = status.resources("allocatable") if status.has("allocatable") else {}
        if not status.has("allocatable"):
            node.allocatable = dict(node.capacity)
        for condition in status.objects("conditions"):
            kind = condition.string("type", required=True)
            state = condition.string("status", required=True)
            if state not in ("True", "False", "Unknown"):
                raise condition.error("status", f"expected True, False or Unknown, got {state!r}")
            condition.ignore("lastHeartbeatTime")
            reason, message = condition.string("reason"), condition.string("message")
            since = condition.time("lastTransitionTime")
            condition.done()
            if kind == "Ready":
                node.ready = state == "True"
                node.ready_reason, node.ready_message = reason, message
                node.ready_transition_time = since
        node.node_info = status.json("nodeInfo", {})
        if not isinstance(node.node_info, dict):
            raise status.error("nodeInfo", "expected an object")
        node.addresses = []
        for address in status.objects("addresses"):
            node.addresses.append(
                {
                    "type": address.string("type", required=True),
                    "address": address.string("address", required=True),
                }
            )
            address.done()
        status.ignore(*IGNORED_STATUS)
        status.done()

    def admit(self, loaded: Loaded, existing: Any | None) -> None:
        """Keep a node's pod range (it may only be set once) and its allocated address."""
        node: Node = loaded.instance
        if existing is None:
            return
        if existing.pod_cidr and node.pod_cidr and node.pod_cidr != existing.pod_cidr:
            causes = Causes()
            causes.forbidden(
                "spec.podCIDRs",
                'node updates may not change podCIDR except from "" to valid',
            )
            causes.raise_if_any(kind="Node", name=node.name)
        node.pod_cidr = node.pod_cidr or existing.pod_cidr
        node.addresses = node.addresses or list(existing.addresses)

    def write(self, instance: Any, children: list[Any] | None) -> Manifest:
        node: Node = instance
        spec: Manifest = {}
        if node.pod_cidr:
            spec["podCIDR"] = node.pod_cidr
            spec["podCIDRs"] = [node.pod_cidr]
        if node.unschedulable:
            spec["unschedulable"] = True
        if node.taints:
            spec["taints"] = [dict(taint) for taint in node.taints]
        ready: Manifest = {"type": "Ready", "status": "True" if node.ready else "False"}
        if node.ready_reason:
            ready["reason"] = node.ready_reason
        if node.ready_message:
            ready["message"] = node.ready_message
        if node.ready_transition_time is not None:
            ready["lastTransitionTime"] = format_time(node.ready_transition_time)
        status = {
            "capacity": format_resources(node.capacity),
            "allocatable": format_resources(node.allocatable),
            "conditions": [ready],
            "nodeInfo": _node_info(node),
        }
        if node.addresses:
            status["addresses"] = [dict(address) for address in node.addresses]
        return {"spec": spec, "status": status}


def _node_info(node: Node) -> Manifest:
    """Return ``status.nodeInfo``: the kubelet's own, or the simulated kubelet's, every field
    present. A simulated node's machine and boot ids are its uid, stable across reads."""
    ids = str(node.uid or "")
    given = node.node_info or {
        **SIMULATED_NODE,
        "machineID": ids.replace("-", ""),
        "systemUUID": ids,
        "bootID": ids,
    }
    return {**dict.fromkeys(NODE_INFO_FIELDS, ""), **given}
