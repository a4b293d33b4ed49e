"""Kubernetes paths of the jobs app: batch.volcano.sh jobs and bus.volcano.sh commands."""

from __future__ import annotations

from django.urls import URLPattern

from jobs.api import serializers as s
from jobs.api.resources import COMMANDS, JOBS
from kube.routes import resource_urls

urlpatterns: list[URLPattern] = [
    *resource_urls(JOBS, s.JobSerializer, s.JobListSerializer),
    *resource_urls(COMMANDS, s.CommandSerializer, s.CommandListSerializer),
]
