"""Services, Endpoints, ConfigMaps (v1) and NetworkPolicies (networking.k8s.io/v1).

Served at kube-apiserver's paths (``/api/v1/namespaces/{ns}/services``, ``.../endpoints``,
``.../configmaps``, ``/apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies``). Clients
create and change Services, ConfigMaps and NetworkPolicies (Volcano's svc plugin creates one
of each per job, owned by it); Endpoints and EndpointSlices (``discovery.k8s.io/v1``) are the endpoints
controller's (``core.endpoints``), read-only here.
"""

from __future__ import annotations

from core.manifests.config_map import ConfigMapKind
from core.manifests.network_policy import NetworkPolicyKind
from core.manifests.service import EndpointsKind, EndpointSliceKind, ServiceKind
from kube.resources import Resource
from kube.serializers import KubeObjectSerializer, list_serializer

__all__ = [
    "CONFIG_MAPS",
    "ENDPOINTS",
    "ENDPOINT_SLICES",
    "NETWORK_POLICIES",
    "SERVICES",
    "ConfigMapListSerializer",
    "ConfigMapSerializer",
    "EndpointSliceListSerializer",
    "EndpointSliceSerializer",
    "EndpointsListSerializer",
    "EndpointsSerializer",
    "NetworkPolicyListSerializer",
    "NetworkPolicySerializer",
    "ServiceListSerializer",
    "ServiceSerializer",
]

_BY_NAME = {"metadata.name": "name", "metadata.namespace": "namespace"}

SERVICES = Resource(
    manifest=ServiceKind(),
    plural="services",
    group="",
    version="v1",
    access="services",
    field_selectors={**_BY_NAME, "spec.clusterIP": "cluster_ip", "spec.type": "type"},
)
ENDPOINTS = Resource(
    manifest=EndpointsKind(),
    plural="endpoints",
    group="",
    version="v1",
    access="endpoints",
    field_selectors=_BY_NAME,
    writable=False,
)
ENDPOINT_SLICES = Resource(
    manifest=EndpointSliceKind(),
    plural="endpointslices",
    group="discovery.k8s.io",
    version="v1",
    access="endpointslices",
    field_selectors=_BY_NAME,
    writable=False,
)
CONFIG_MAPS = Resource(
    manifest=ConfigMapKind(),
    plural="configmaps",
    group="",
    version="v1",
    access="configmaps",
    field_selectors=_BY_NAME,
)
NETWORK_POLICIES = Resource(
    manifest=NetworkPolicyKind(),
    plural="networkpolicies",
    group="networking.k8s.io",
    version="v1",
    access="networkpolicies",
    field_selectors=_BY_NAME,
)


class ServiceSerializer(KubeObjectSerializer):
    """``v1`` Service: type, clusterIP, selector and ports in spec."""


class EndpointsSerializer(KubeObjectSerializer):
    """``v1`` Endpoints: the addresses of the pods a Service selects (``subsets``)."""


class EndpointSliceSerializer(KubeObjectSerializer):
    """``discovery.k8s.io/v1`` EndpointSlice: a Service's endpoints, their conditions, ports."""


class ConfigMapSerializer(KubeObjectSerializer):
    """``v1`` ConfigMap: ``data`` (key → text) and ``binaryData`` (key → base64)."""


class NetworkPolicySerializer(KubeObjectSerializer):
    """``networking.k8s.io/v1`` NetworkPolicy: podSelector, ingress, egress, policyTypes."""


ServiceListSerializer = list_serializer(ServiceSerializer, "ServiceListSerializer")
EndpointsListSerializer = list_serializer(EndpointsSerializer, "EndpointsListSerializer")
EndpointSliceListSerializer = list_serializer(
    EndpointSliceSerializer, "EndpointSliceListSerializer"
)
ConfigMapListSerializer = list_serializer(ConfigMapSerializer, "ConfigMapListSerializer")
NetworkPolicyListSerializer = list_serializer(
    NetworkPolicySerializer, "NetworkPolicyListSerializer"
)
