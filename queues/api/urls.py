"""Kubernetes paths of queues: /apis/scheduling.volcano.sh/v1beta1/queues[/{name}[/status]]."""

from __future__ import annotations

from django.urls import URLPattern

from queues.api.serializers import QueueListSerializer, QueueSerializer
from queues.api.views import QUEUES
from volcano_site.kube.routes import resource_urls

urlpatterns: list[URLPattern] = resource_urls(QUEUES, QueueSerializer, QueueListSerializer)
