"""Kubernetes paths of the training operator's kinds (kubeflow.org/v1)."""

from __future__ import annotations

from django.urls import URLPattern

from kube.routes import resource_urls
from training.api.resources import (
    TRAINING_RESOURCES,
    TrainingJobListSerializer,
    TrainingJobSerializer,
)

urlpatterns: list[URLPattern] = [
    url
    for resource in TRAINING_RESOURCES
    for url in resource_urls(resource, TrainingJobSerializer, TrainingJobListSerializer)
]
