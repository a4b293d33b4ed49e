"""The v1 kinds as the API server serves them, registered with the kernel (``register``).

Discovery names, printer columns and categories are kube-apiserver's (``kubectl get pods``
prints READY, STATUS, RESTARTS, AGE; ``kubectl get events`` LAST SEEN first), with who may read
and write each (``accounts.roles``) and where ``manage.py apply`` takes it. Core also brings the
namespace machinery every namespaced kind relies on: NamespaceLifecycle admission, a bundle's
namespaces created before it is applied, and a terminating namespace that finishes once its
last object goes.
"""

from __future__ import annotations

from typing import Any

from accounts.roles import EVERYONE, OPERATORS, SUBMITTERS
from core.api.nodes import NODES
from core.api.policy import DISRUPTION_BUDGET_ENTRY, RESOURCE_QUOTA_ENTRY
from core.api.resources import EVENTS, PODS, PRIORITY_CLASSES
from core.api.secrets import SECRETS
from core.api.services import (
    CONFIG_MAPS,
    ENDPOINT_SLICES,
    ENDPOINTS,
    NETWORK_POLICIES,
    SERVICES,
)
from core.disruption import reconcile_disruption_budgets
from core.endpoints import reconcile_endpoints
from core.namespaces import (
    NAMESPACES,
    bundle_namespaces,
    namespace_delete,
    namespace_finish,
    namespace_lifecycle,
    namespace_released,
)
from core.network import allocate_node_networks
from core.pod_deletion import pod_delete_gracefully
from core.quota import admit_object_count, reconcile_quotas
from kube import registry
from kube.registry import KUBE_AGE, AccessRule, Column, Controller, Entry, Invalid

__all__ = ["register"]

NAMESPACE_ENTRY = Entry(
    NAMESPACES,
    "namespace",
    ("ns",),
    columns=(Column("Status", "string", ".status.phase"), KUBE_AGE),
    delete=namespace_delete,
    finish=namespace_finish,
    example=NAMESPACES.example,
    invalid=Invalid("spec.finalizers", "kubernetes"),
)


def _pod_delete(pod: Any, *, grace_period: int | None) -> bool:
    """A pod on a node is deleted gracefully: marked, Running until its containers exit."""
    return pod_delete_gracefully(pod, grace_period)


POD_ENTRY = Entry(
    PODS,
    "pod",
    ("po",),
    ("all",),
    columns=(
        Column("Ready", "string", "@ready"),
        Column("Status", "string", "@pod-status"),
        Column("Restarts", "integer", "@restarts"),
        KUBE_AGE,
        # The wide columns, in kube-apiserver's order and wording.
        Column("IP", "string", ".status.podIP", priority=1, empty="<none>"),
        Column("Node", "string", ".spec.nodeName", priority=1, empty="<none>"),
        Column(
            "Nominated Node",
            "string",
            ".status.nominatedNodeName",
            priority=1,
            empty="<none>",
            description="The node the scheduler pipelined the pod onto, to bind later",
        ),
        Column("Readiness Gates", "string", "@readiness-gates", priority=1),
    ),
    subresources=("log", "eviction"),
    apply_order=80,
    delete=_pod_delete,
    example={
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "pod-1"},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]},
    },
    invalid=Invalid("spec.restartPolicy", "Sometimes"),
)
NODE_ENTRY = Entry(
    NODES,
    "node",
    ("no",),
    columns=(
        Column("Status", "string", "@node-status"),
        Column("Roles", "string", "@none"),
        KUBE_AGE,
        Column("Version", "string", ".status.nodeInfo.kubeletVersion"),
        # The wide columns, in kube-apiserver's order and wording.
        Column("Internal-IP", "string", "@address:InternalIP", priority=1),
        Column("External-IP", "string", "@address:ExternalIP", priority=1),
        Column("OS-Image", "string", ".status.nodeInfo.osImage", priority=1, empty="<unknown>"),
        Column(
            "Kernel-Version",
            "string",
            ".status.nodeInfo.kernelVersion",
            priority=1,
            empty="<unknown>",
        ),
        Column(
            "Container-Runtime",
            "string",
            ".status.nodeInfo.containerRuntimeVersion",
            priority=1,
            empty="<unknown>",
        ),
    ),
    apply_order=30,
    console_page="scheduler:node_detail",
    # A person cordoning or tainting a node is in the audit log.
    audited_fields=("unschedulable", "taints"),
    example={
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "node-1"},
        "status": {"capacity": {"cpu": "4", "memory": "8Gi"}},
    },
    invalid=Invalid("status.capacity.cpu", "lots"),
)
EVENT_ENTRY = Entry(
    EVENTS,
    "event",
    ("ev",),
    columns=(
        Column("Last Seen", "string", "@last-seen"),
        Column("Type", "string", ".type"),
        Column("Reason", "string", ".reason"),
        Column("Object", "string", "@involved"),
        Column("Subobject", "string", ".involvedObject.fieldPath", priority=1, empty=""),
        Column("Source", "string", "@source", priority=1),
        Column("Message", "string", ".message"),
        Column("First Seen", "string", "@first-seen", priority=1),
        Column("Count", "string", ".count", priority=1),
        Column("Name", "string", ".metadata.name", priority=1, format="name"),
    ),
    name_first=False,
    apply_order=100,
    example={
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "pod-1.1"},
        "involvedObject": {"kind": "Pod", "name": "pod-1", "namespace": "default"},
        "reason": "Scheduled",
        "message": "assigned to node-1",
        "type": "Normal",
    },
    invalid=Invalid("type", "Fatal"),
    # Events keep no labels of their own.
    change={"message": "assigned to node-2"},
)
SECRET_ENTRY = Entry(
    SECRETS,
    "secret",
    columns=(
        Column("Type", "string", ".type"),
        Column("Data", "integer", "@data-count", description="Keys in the secret"),
        KUBE_AGE,
    ),
    example={
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "job-1-ssh"},
        "type": "Opaque",
        "data": {"id_rsa": "a2V5"},
    },
    created_by="the job controller (a job's ssh plugin); the API serves Secrets read-only",
)
PRIORITY_CLASS_ENTRY = Entry(
    PRIORITY_CLASSES,
    "priorityclass",
    ("pc",),
    columns=(
        Column("Value", "integer", ".value"),
        Column("Global-Default", "boolean", ".globalDefault"),
        KUBE_AGE,
        Column("PreemptionPolicy", "string", ".preemptionPolicy"),
    ),
    apply_order=10,
    example=PRIORITY_CLASSES.example,
    invalid=Invalid("value", "high"),
)
SERVICE_ENTRY = Entry(
    SERVICES,
    "service",
    ("svc",),
    ("all",),
    columns=(
        Column("Type", "string", ".spec.type"),
        Column("Cluster-IP", "string", ".spec.clusterIP", empty="<none>"),
        Column("External-IP", "string", "@service-external-ip"),
        Column("Port(s)", "string", "@service-ports"),
        KUBE_AGE,
        Column("Selector", "string", "@selector", priority=1),
    ),
    apply_order=75,
    example={
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web"},
        "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 8080}]},
    },
    invalid=Invalid("spec.ports[0].port", 70000),
)
ENDPOINTS_ENTRY = Entry(
    ENDPOINTS,
    "endpoints",
    ("ep",),
    columns=(Column("Endpoints", "string", "@endpoints"), KUBE_AGE),
    example={
        "apiVersion": "v1",
        "kind": "Endpoints",
        "metadata": {"name": "web"},
        "subsets": [
            {"addresses": [{"ip": "10.244.0.2"}], "ports": [{"port": 8080, "protocol": "TCP"}]}
        ],
    },
    created_by="the endpoints controller (one per Service with a selector); read-only here",
)
ENDPOINT_SLICE_ENTRY = Entry(
    ENDPOINT_SLICES,
    "endpointslice",
    columns=(
        Column("AddressType", "string", ".addressType"),
        Column("Ports", "string", "@slice-ports"),
        Column("Endpoints", "string", "@slice-endpoints"),
        KUBE_AGE,
    ),
    example={
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {"name": "web-abcde", "labels": {"kubernetes.io/service-name": "web"}},
        "addressType": "IPv4",
        "endpoints": [{"addresses": ["10.244.0.2"], "conditions": {"ready": True}}],
        "ports": [{"port": 8080, "protocol": "TCP"}],
    },
    created_by="the endpoints controller (one per Service with a selector); read-only here",
)
CONFIG_MAP_ENTRY = Entry(
    CONFIG_MAPS,
    "configmap",
    ("cm",),
    columns=(
        Column("Data", "integer", "@config-map-data", description="Keys in the config map"),
        KUBE_AGE,
    ),
    example={
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "settings"},
        "data": {"mode": "fast"},
    },
    invalid=Invalid("data", {"not a key": "x"}, "data[not a key]"),
)
NETWORK_POLICY_ENTRY = Entry(
    NETWORK_POLICIES,
    "networkpolicy",
    ("netpol",),
    columns=(Column("Pod-Selector", "string", "@pod-selector"), KUBE_AGE),
    apply_order=76,
    example={
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "same-app"},
        "spec": {
            "podSelector": {"matchLabels": {"app": "web"}},
            "ingress": [{"from": [{"podSelector": {"matchLabels": {"app": "web"}}}]}],
        },
    },
    invalid=Invalid("spec.policyTypes", ["Sideways"], "spec.policyTypes[0]"),
)

# Everyone reads the v1 kinds in their namespaces; operators write them.
_NAMESPACED = AccessRule(EVERYONE, OPERATORS, namespaced=True)
_CLUSTER = AccessRule(EVERYONE, OPERATORS, namespaced=False)
_WORKLOAD = AccessRule(EVERYONE, SUBMITTERS, namespaced=True)


def _node_ipam(now: Any) -> int:
    """Give new nodes their pod range and address (kube-controller-manager's node IPAM)."""
    return allocate_node_networks()


def register() -> None:
    """Serve the v1 kinds and the namespace machinery (``CoreConfig.ready``)."""
    # The order discovery lists them in (/api/v1: namespaces, pods, nodes, events, secrets).
    registry.register_kind(NAMESPACE_ENTRY, access=_CLUSTER)
    registry.register_kind(POD_ENTRY, access=_NAMESPACED)
    registry.register_kind(NODE_ENTRY, access=_CLUSTER)
    registry.register_kind(EVENT_ENTRY, access=_NAMESPACED)
    # Key material: not for viewers (Kubernetes' view role leaves Secrets out).
    registry.register_kind(SECRET_ENTRY, access=AccessRule(SUBMITTERS, OPERATORS, namespaced=True))
    registry.register_kind(PRIORITY_CLASS_ENTRY, access=_CLUSTER)
    # Services, ConfigMaps and NetworkPolicies are a workload's own (Kubernetes' edit role).
    registry.register_kind(SERVICE_ENTRY, access=_WORKLOAD)
    registry.register_kind(ENDPOINTS_ENTRY, access=_NAMESPACED)
    registry.register_kind(ENDPOINT_SLICE_ENTRY, access=_NAMESPACED)
    registry.register_kind(CONFIG_MAP_ENTRY, access=_WORKLOAD)
    registry.register_kind(NETWORK_POLICY_ENTRY, access=_WORKLOAD)
    registry.add_controller(Controller("core.node-ipam", _node_ipam, order=5))
    registry.add_controller(Controller("core.endpoints", reconcile_endpoints, order=300))
    # Budgets and quotas are an operator's (Kubernetes' admin role); everyone reads them.
    registry.register_kind(DISRUPTION_BUDGET_ENTRY, access=_NAMESPACED)
    registry.register_kind(RESOURCE_QUOTA_ENTRY, access=_NAMESPACED)
    for name in ("poddisruptionbudgets/status", "resourcequotas/status"):
        registry.register_access(name, _NAMESPACED)
    # Evicting deletes a pod: whoever may delete pods may evict them.
    registry.register_access("pods/eviction", _NAMESPACED)
    # After the controllers that make pods (jobs 10, training 20), before the session.
    registry.add_controller(Controller("core.disruption", reconcile_disruption_budgets, order=310))
    registry.add_controller(Controller("core.resourcequota", reconcile_quotas, order=320))
    registry.add_admission_plugin("ResourceQuota", admit_object_count)
    # A pod's status is the kubelet's and the scheduler's; operators may write it too (repairs).
    registry.register_access("pods/status", _NAMESPACED)
    registry.add_admission_plugin("NamespaceLifecycle", namespace_lifecycle)
    registry.add_apply_hook("core.namespaces", bundle_namespaces)
    registry.add_release_hook("core.namespace-finish", namespace_released)
