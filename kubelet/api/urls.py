"""Kubernetes paths the kubelet serves: pod logs, metrics.k8s.io (``kubectl top``), faults, and
the resource exporter's Numatopologies (``nodeinfo.volcano.sh``)."""

from __future__ import annotations

from django.urls import URLPattern, path

from kube.routes import resource_urls
from kube.serializers import KubeObjectSerializer, list_serializer
from kubelet.api import faults, resource_metrics
from kubelet.api.numatopologies import NUMATOPOLOGIES
from kubelet.api.pod_log import PodLogView


class NumatopologySerializer(KubeObjectSerializer):
    """``nodeinfo.volcano.sh/v1alpha1`` Numatopology: policies, numares, cpuDetail, ..."""


NumatopologyListSerializer = list_serializer(NumatopologySerializer, "NumatopologyListSerializer")

_METRICS = f"apis/{resource_metrics.GROUP_VERSION}"

urlpatterns: list[URLPattern] = [
    *resource_urls(NUMATOPOLOGIES, NumatopologySerializer, NumatopologyListSerializer),
    path(
        "api/v1/namespaces/<str:namespace>/pods/<str:name>/log",
        PodLogView.as_view(),
        name="pods-log",
    ),
    path("api/v1/nodes/<str:name>/faults", faults.NodeFaultView.as_view(), name="nodes-faults"),
    path(
        "api/v1/namespaces/<str:namespace>/pods/<str:name>/faults",
        faults.PodFaultView.as_view(),
        name="pods-faults",
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
