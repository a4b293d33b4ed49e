"""Wire shapes of the jobs app's resources for the OpenAPI schema (Volcano's spelling)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from kube.serializers import (
    KubeObjectSerializer,
    ObjectMetaSerializer,
    list_serializer,
)

__all__ = ["CommandListSerializer", "CommandSerializer", "JobListSerializer", "JobSerializer"]


class JobSerializer(KubeObjectSerializer):
    """``batch.volcano.sh/v1alpha1`` Job: spec (tasks, minAvailable, queue, ...) and status."""


class CommandSerializer(serializers.Serializer[Any]):
    """``bus.volcano.sh/v1alpha1`` Command: an action (AbortJob, ResumeJob, ...) on a target."""

    apiVersion = serializers.CharField()
    kind = serializers.CharField()
    metadata = ObjectMetaSerializer()
    action = serializers.CharField()
    target = serializers.DictField()
    reason = serializers.CharField(required=False)
    message = serializers.CharField(required=False)


JobListSerializer = list_serializer(JobSerializer, "JobListSerializer")
CommandListSerializer = list_serializer(CommandSerializer, "CommandListSerializer")
