"""Kubernetes paths of hypernodes (cluster-scoped, with /status)."""

from __future__ import annotations

from django.urls import URLPattern

from kube.routes import resource_urls
from topology.api.resources import HYPER_NODES
from topology.api.serializers import HyperNodeListSerializer, HyperNodeSerializer

urlpatterns: list[URLPattern] = [
    *resource_urls(HYPER_NODES, HyperNodeSerializer, HyperNodeListSerializer),
]
