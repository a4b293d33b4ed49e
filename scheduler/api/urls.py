"""Kubernetes paths of nodes and of the scheduler configuration."""

from __future__ import annotations

from django.urls import URLPattern, path

from scheduler.api import faults, resource_metrics, views
from scheduler.api.serializers import NodeListSerializer, NodeSerializer
from volcano_site.kube.routes import resource_urls

_CONF = "apis/scheduler.volcano.sh/v1alpha1/schedulerconfigurations"
_METRICS = f"apis/{resource_metrics.GROUP_VERSION}"

urlpatterns: list[URLPattern] = [
    *resource_urls(views.NODES, NodeSerializer, NodeListSerializer),
    path(_CONF, views.ConfigurationListView.as_view(), name="schedulerconfigurations-list"),
    path(
        f"{_CONF}/<str:name>",
        views.ConfigurationItemView.as_view(),
        name="schedulerconfigurations-detail",
    ),
    path("api/v1/nodes/<str:name>/faults", faults.NodeFaultView.as_view(), name="nodes-faults"),
    path(
        "api/v1/namespaces/<str:namespace>/pods/<str:name>/faults",
        faults.PodFaultView.as_view(),
        name="pods-faults",
    ),
    path(
        f"{_CONF}/<str:name>/activate",
        views.ConfigurationActivateView.as_view(),
        name="schedulerconfigurations-activate",
    ),
    # metrics-server's API, which `kubectl top` reads.
    path(f"{_METRICS}/nodes", resource_metrics.NodeMetricsListView.as_view(), name="nodemetrics"),
    path(f"{_METRICS}/nodes/<str:name>", resource_metrics.NodeMetricsItemView.as_view()),
    path(f"{_METRICS}/pods", resource_metrics.PodMetricsListView.as_view(), name="podmetrics"),
    path(
        f"{_METRICS}/namespaces/<str:namespace>/pods",
        resource_metrics.NamespacedPodMetricsListView.as_view(),
        name="podmetrics-namespaced",
    ),
    path(
        f"{_METRICS}/namespaces/<str:namespace>/pods/<str:name>",
        resource_metrics.PodMetricsItemView.as_view(),
    ),
]
