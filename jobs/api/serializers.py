"""Wire shapes of the jobs app's resources for the OpenAPI schema (Volcano's spelling)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from volcano_site.kube.serializers import (
    KubeObjectSerializer,
    ObjectMetaSerializer,
    list_serializer,
)

__all__ = [
    "CommandListSerializer",
    "CommandSerializer",
    "EventListSerializer",
    "EventSerializer",
    "JobListSerializer",
    "JobSerializer",
    "PodGroupListSerializer",
    "PodGroupSerializer",
    "PodListSerializer",
    "PodSerializer",
    "PriorityClassListSerializer",
    "PriorityClassSerializer",
]


class JobSerializer(KubeObjectSerializer):
    """``batch.volcano.sh/v1alpha1`` Job: spec (tasks, minAvailable, queue, ...) and status."""


class PodGroupSerializer(KubeObjectSerializer):
    """``scheduling.volcano.sh/v1beta1`` PodGroup: minMember, queue, phase."""


class PodSerializer(KubeObjectSerializer):
    """``v1`` Pod: the spec from its task's template, the simulated run's status."""


class CommandSerializer(serializers.Serializer[Any]):
    """``bus.volcano.sh/v1alpha1`` Command: an action (AbortJob, ResumeJob, ...) on a target."""

    apiVersion = serializers.CharField()
    kind = serializers.CharField()
    metadata = ObjectMetaSerializer()
    action = serializers.CharField()
    target = serializers.DictField()
    reason = serializers.CharField(required=False)
    message = serializers.CharField(required=False)


class EventSerializer(serializers.Serializer[Any]):
    """``v1`` Event about an object."""

    apiVersion = serializers.CharField()
    kind = serializers.CharField()
    metadata = ObjectMetaSerializer()
    involvedObject = serializers.DictField()
    type = serializers.CharField()
    reason = serializers.CharField()
    message = serializers.CharField(required=False)
    count = serializers.IntegerField(required=False)


class PriorityClassSerializer(serializers.Serializer[Any]):
    """``scheduling.k8s.io/v1`` PriorityClass."""

    apiVersion = serializers.CharField()
    kind = serializers.CharField()
    metadata = ObjectMetaSerializer()
    value = serializers.IntegerField()
    globalDefault = serializers.BooleanField(required=False)
    preemptionPolicy = serializers.CharField(required=False)
    description = serializers.CharField(required=False)


JobListSerializer = list_serializer(JobSerializer, "JobListSerializer")
PodGroupListSerializer = list_serializer(PodGroupSerializer, "PodGroupListSerializer")
PodListSerializer = list_serializer(PodSerializer, "PodListSerializer")
CommandListSerializer = list_serializer(CommandSerializer, "CommandListSerializer")
EventListSerializer = list_serializer(EventSerializer, "EventListSerializer")
PriorityClassListSerializer = list_serializer(
    PriorityClassSerializer, "PriorityClassListSerializer"
)
