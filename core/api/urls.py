"""Kubernetes paths of the v1 kinds: namespaces, pods (and their eviction), events, secrets,
nodes, priority classes, services, endpoints, config maps, network policies, resource quotas
and pod disruption budgets."""

from __future__ import annotations

from django.urls import URLPattern, path

from core.api import serializers as s
from core.api import services as sv
from core.api.eviction import EvictionView
from core.api.nodes import NODES
from core.api.policy import (
    DISRUPTION_BUDGETS,
    RESOURCE_QUOTAS,
    PolicyListSerializer,
    PolicySerializer,
)
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
    *resource_urls(DISRUPTION_BUDGETS, PolicySerializer, PolicyListSerializer),
    *resource_urls(RESOURCE_QUOTAS, PolicySerializer, PolicyListSerializer),
    path(
        "api/v1/namespaces/<str:namespace>/pods/<str:name>/eviction",
        EvictionView.as_view(),
        name="pods-eviction",
    ),
]
