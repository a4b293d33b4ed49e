"""Kubernetes paths of queues (cluster-scoped, with /status) and podgroups."""

from __future__ import annotations

from django.urls import URLPattern

from kube.routes import resource_urls
from queues.api import serializers as s
from queues.api.resources import PODGROUPS, QUEUES

urlpatterns: list[URLPattern] = [
    *resource_urls(QUEUES, s.QueueSerializer, s.QueueListSerializer),
    *resource_urls(PODGROUPS, s.PodGroupSerializer, s.PodGroupListSerializer),
]
