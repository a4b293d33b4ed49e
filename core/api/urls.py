"""Kubernetes paths of the v1 kinds: namespaces, pods, events, secrets, nodes, priority classes,
services, endpoints, config maps and network policies."""

from __future__ import annotations

from django.urls import URLPattern

from core.api import serializers as s
from core.api import services as sv
from core.api.nodes import NODES
from core.api.resources import EVENTS, PODS, PRIORITY_CLASSES
from core.api.secrets import SECRETS, SecretListSerializer, SecretSerializer
from core.api.services import (
    CONFIG_MAPS,
    ENDPOINT_SLICES,
    ENDPOINTS,
    NETWORK_POLICIES,
    SERVICES,
)
from core.namespaces import NAMESPACES
from kube.routes import resource_urls
from kube.serializers import KubeObjectSerializer, list_serializer

urlpatterns: list[URLPattern] = [
    *resource_urls(
        NAMESPACES, KubeObjectSerializer, list_serializer(KubeObjectSerializer, "NamespaceList")
    ),
    *resource_urls(PODS, s.PodSerializer, s.PodListSerializer),
    *resource_urls(EVENTS, s.EventSerializer, s.EventListSerializer),
    *resource_urls(SECRETS, SecretSerializer, SecretListSerializer),
    *resource_urls(PRIORITY_CLASSES, s.PriorityClassSerializer, s.PriorityClassListSerializer),
    *resource_urls(NODES, s.NodeSerializer, s.NodeListSerializer),
    *resource_urls(SERVICES, sv.ServiceSerializer, sv.ServiceListSerializer),
    *resource_urls(ENDPOINTS, sv.EndpointsSerializer, sv.EndpointsListSerializer),
    *resource_urls(ENDPOINT_SLICES, sv.EndpointSliceSerializer, sv.EndpointSliceListSerializer),
    *resource_urls(CONFIG_MAPS, sv.ConfigMapSerializer, sv.ConfigMapListSerializer),
    *resource_urls(NETWORK_POLICIES, sv.NetworkPolicySerializer, sv.NetworkPolicyListSerializer),
]
