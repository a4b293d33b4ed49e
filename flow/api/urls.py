"""Kubernetes paths of the workflow kinds (flow.volcano.sh/v1alpha1, batch.volcano.sh CronJob)."""

from __future__ import annotations

from django.urls import URLPattern

from flow.api.resources import FLOW_RESOURCES, FlowListSerializer, FlowSerializer
from kube.routes import resource_urls

urlpatterns: list[URLPattern] = [
    url
    for resource in FLOW_RESOURCES
    for url in resource_urls(resource, FlowSerializer, FlowListSerializer)
]
