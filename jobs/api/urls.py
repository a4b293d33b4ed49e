"""Kubernetes paths of the jobs app: jobs, podgroups, pods (and their log), commands, events,
secrets, priority classes, and the Kubeflow training jobs."""

from __future__ import annotations

from django.urls import URLPattern, path

from jobs.api import serializers as s
from jobs.api.resources import COMMANDS, EVENTS, JOBS, PODGROUPS, PODS, PRIORITY_CLASSES
from jobs.api.secrets import SECRETS, SecretListSerializer, SecretSerializer
from jobs.api.training import TRAINING_RESOURCES, TrainingJobListSerializer, TrainingJobSerializer
from jobs.api.views import PodLogView
from volcano_site.kube.routes import resource_urls

urlpatterns: list[URLPattern] = [
    *resource_urls(JOBS, s.JobSerializer, s.JobListSerializer),
    *resource_urls(PODGROUPS, s.PodGroupSerializer, s.PodGroupListSerializer),
    path(
        "api/v1/namespaces/<str:namespace>/pods/<str:name>/log",
        PodLogView.as_view(),
        name="pods-log",
    ),
    *resource_urls(PODS, s.PodSerializer, s.PodListSerializer),
    *resource_urls(COMMANDS, s.CommandSerializer, s.CommandListSerializer),
    *resource_urls(EVENTS, s.EventSerializer, s.EventListSerializer),
    *resource_urls(SECRETS, SecretSerializer, SecretListSerializer),
    *resource_urls(PRIORITY_CLASSES, s.PriorityClassSerializer, s.PriorityClassListSerializer),
    *(
        url
        for resource in TRAINING_RESOURCES
        for url in resource_urls(resource, TrainingJobSerializer, TrainingJobListSerializer)
    ),
]
