"""Kubernetes paths of nodes and of the scheduler configuration."""

from __future__ import annotations

from django.urls import URLPattern, path

from scheduler.api import faults, views
from scheduler.api.serializers import NodeListSerializer, NodeSerializer
from volcano_site.kube.routes import resource_urls

_CONF = "apis/scheduler.volcano.sh/v1alpha1/schedulerconfigurations"

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
]
